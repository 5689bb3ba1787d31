// Opening a topology or a model from outside the bundled folders: read by the plan loader, the
// curves follow as for the same file named in a plan, errors name the file and line.
#include <gtest/gtest.h>

#include <QComboBox>
#include <filesystem>
#include <fstream>

#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "tests/gui/gui_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

TEST(GuiOpenPart, TopologyAndModelFromATempFolder) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-open-part";
  fs::remove_all(dir);
  fs::create_directories(dir / "elsewhere");
  fs::path topology = dir / "elsewhere" / "my-cluster.yaml";
  std::ofstream(topology) << "name: my-cluster\n"
                             "devices_per_node: 4\n"
                             "device: { name: A100, flops: 312TFLOPS }\n"
                             "intra_node: { bandwidth: 300GB/s, latency: 1us }\n"
                             "nic: { bandwidth: 25Gbps, latency: 5us }\n"
                             "network: { kind: two_tier, hosts_per_rack: 4,\n"
                             "           uplink: { bandwidth: 50Gbps, latency: 2us } }\n";
  fs::path model = dir / "elsewhere" / "my-model.yaml";
  std::ofstream(model) << "name: my-model\nparameters: 100M\nflops_per_sample: 30GFLOP\n";

  MainWindow w(quickstart());
  PlanPanel* panel = w.plan_panel();
  EXPECT_TRUE(panel->open_part("cluster", topology.string()).isEmpty())
      << panel->error("cluster").toStdString();
  EXPECT_TRUE(panel->open_part("workload", model.string()).isEmpty())
      << panel->error("workload").toStdString();
  auto* picker = dynamic_cast<QComboBox*>(panel->editor("cluster"));
  EXPECT_EQ(picker->currentText(), "my-cluster (opened)");
  EXPECT_EQ(dynamic_cast<QComboBox*>(panel->editor("workload"))->currentText(),
            "my-model (opened)");
  EXPECT_EQ(dynamic_cast<QComboBox*>(panel->editor("network.kind"))->currentText(), "two_tier");

  // The same files named in the quickstart plan (a different path: the loader resolves them).
  std::string plan = edited_quickstart(
      dir, {{"plan", "cluster: topology.yaml", "cluster: elsewhere/my-cluster.yaml"},
            {"plan", "workload: model.yaml", "workload: elsewhere/my-model.yaml"}});
  Curves yaml = compute_curves(core::load_plan(plan), w.curves().workers);
  EXPECT_GE(expect_chart_equals_curves(w, yaml, 1e-12), 8u);

  // A wrong file: the loader's message with its file and line, at the picker; the curves stay.
  fs::path bad = dir / "elsewhere" / "bad.yaml";
  std::ofstream(bad) << "name: bad\ndevice: { flops: 1TFLOPS }\nnic: { bandwidth: 10Gbq }\n";
  auto before = throughput_points(w);
  QString error = panel->open_part("cluster", bad.string());
  EXPECT_TRUE(error.startsWith(QString::fromStdString(bad.string() + ":3:")))
      << error.toStdString();
  EXPECT_TRUE(error.contains("10Gbq")) << error.toStdString();
  EXPECT_EQ(panel->error("cluster"), error);
  EXPECT_EQ(throughput_points(w), before);
  EXPECT_EQ(picker->currentText(), "my-cluster (opened)");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace scaleout::gui
