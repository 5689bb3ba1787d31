// The plan fields of the network, the node's fabric, gradient fusion, the torus grid and the
// parameter server's knobs, headless: keys typed into each act as the same edit of the YAML files,
// a field that does not apply is disabled and says why, wrong values keep the last good curves,
// and a saved plan loads back to the same curves.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QTest>
#include <filesystem>

#include "core/plan/plan_loader.hpp"
#include "gui/main_window.hpp"
#include "gui/plan_panel.hpp"
#include "tests/gui/gui_support.hpp"

namespace scaleout::gui {
namespace {

namespace fs = std::filesystem;

// Types `text` into a text field, or chooses it in a choice field, as a user would.
void enter(PlanPanel* panel, const std::string& key, const std::string& text) {
  QWidget* editor = panel->editor(key);
  ASSERT_TRUE(editor->isEnabled()) << key << ": " << editor->toolTip().toStdString();
  if (auto* box = dynamic_cast<QCheckBox*>(editor)) {
    if (box->isChecked() != (text == "true")) box->click();
  } else if (auto* combo = dynamic_cast<QComboBox*>(editor)) {
    ASSERT_GE(combo->findText(QString::fromStdString(text)), 0) << key << " has no " << text;
    combo->setCurrentText(QString::fromStdString(text));
    emit combo->textActivated(QString::fromStdString(text));
  } else {
    type_into(editor, QString::fromStdString(text));
  }
  EXPECT_TRUE(panel->error(key).isEmpty()) << key << ": " << panel->error(key).toStdString();
}

struct Step {
  std::string key, text;
};

struct FieldCase {
  std::vector<Step> steps;
  std::vector<YamlReplace> yaml;  // the same edits, made in the quickstart's files
};

const std::vector<FieldCase>& field_cases() {
  static const std::vector<FieldCase> cases = {
      {{{"training.fusion.kind", "ddp"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion: { kind: ddp }"}}},
      {{{"training.fusion.kind", "ddp"}, {"training.fusion.bucket_cap", "8MiB"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion: { kind: ddp, bucket_cap: 8MiB }"}}},
      {{{"training.fusion.kind", "ddp"}, {"training.fusion.first_bucket", "512KiB"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion: { kind: ddp, first_bucket: 512KiB }"}}},
      {{{"training.fusion.kind", "horovod"}, {"training.fusion.cycle_time", "5ms"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion: { kind: horovod, cycle_time: 5ms }"}}},
      {{{"training.fusion.kind", "horovod"}, {"training.fusion.threshold", "16MiB"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion: { kind: horovod, threshold: 16MiB }"}}},
      {{{"training.efficiency", "0.5"}},
       {{"plan", "fusion_buffer: 64MiB", "fusion_buffer: 64MiB\n  efficiency: 0.5"}}},
      {{{"strategy.grid", "16x4"}}, {{"plan", "  ps: {", "  torus2d: { grid: [16, 4] }\n  ps: {"}}},
      {{{"training.compression.kind", "powersgd"}, {"training.compression.rank", "2"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: powersgd, rank: 2 }"}}},
      {{{"strategy.mode", "async"}, {"strategy.staleness_bound", "4"}},
       {{"plan", "placement: dedicated }",
         "placement: dedicated, mode: async, staleness_bound: 4 }"}}},
      {{{"strategy.replicas_to_aggregate", "6"}},
       {{"plan", "placement: dedicated }", "placement: dedicated, replicas_to_aggregate: 6 }"}}},
      {{{"strategy.softsync", "2"}},
       {{"plan", "placement: dedicated }", "placement: dedicated, softsync: 2 }"}}},
      {{{"strategy.local_aggregation", "node"}},
       {{"plan", "placement: dedicated }", "placement: dedicated, local_aggregation: node }"}}},
      {{{"cluster.nics_per_node", "2"}},
       {{"topology", "devices_per_node: 8", "devices_per_node: 8\nnics_per_node: 2"}}},
      {{{"intra_node.kind", "pcie_tree"},
        {"intra_node.gpus_per_switch", "4"},
        {"intra_node.uplink", "16GB/s"}},
       {{"topology", "intra_node: { bandwidth: 150GB/s, latency: 1us }",
         "intra_node: { kind: pcie_tree, bandwidth: 150GB/s, latency: 1us, gpus_per_switch: 4,\n"
         "              uplink: { bandwidth: 16GB/s, latency: 1us } }"}}},
      {{{"network.kind", "two_tier"},
        {"network.hosts_per_rack", "8"},
        {"network.uplink", "200Gbps"}},
       {{"topology", "network: { kind: switch }",
         "network: { kind: two_tier, hosts_per_rack: 8,\n"
         "           uplink: { bandwidth: 200Gbps, latency: 2us } }"}}},
      {{{"network.kind", "fat_tree"}, {"network.k", "8"}},
       {{"topology", "network: { kind: switch }", "network: { kind: fat_tree, k: 8 }"}}},
      {{{"network.kind", "torus2d"}, {"network.dims", "4x4"}},
       {{"topology", "network: { kind: switch }", "network: { kind: torus2d, dims: [4, 4] }"}}},
      {{{"training.compression.kind", "topk"}, {"training.compression.density", "0.001"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: topk, density: 0.001 }"}}},
      {{{"training.compression.kind", "int8"},
        {"training.compression.chunk", "4MiB"},
        {"training.compression.error_feedback", "false"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: int8, chunk: 4MiB, error_feedback: false "
         "}"}}},
      {{{"strategy.mode", "async"},
        {"strategy.delay_compensation.lambda", "0.1"},
        {"strategy.delay_compensation.learning_rate", "0.05"}},
       {{"plan", "placement: dedicated }",
         "placement: dedicated, mode: async,\n"
         "        delay_compensation: { lambda: 0.1, learning_rate: 0.05 } }"}}},
      {{{"training.compression.kind", "randomk"},
        {"training.compression.density", "0.001"},
        {"training.compression.shared_indices", "true"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: randomk, density: 0.001, shared_indices: "
         "true }"}}},
      {{{"training.compression.kind", "quantize"}, {"training.compression.bits", "4"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: quantize, bits: 4 }"}}},
      {{{"training.compression.kind", "onebit"}, {"training.compression.exchange", "allgather"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: onebit, exchange: allgather }"}}},
      {{{"training.compression.kind", "onebit"},
        {"training.compression.exchange", "allgather"},
        {"training.compression.error_feedback", "false"},
        {"training.compression.majority_vote", "true"}},
       {{"plan", "fusion_buffer: 64MiB",
         "fusion_buffer: 64MiB\n  compression: { kind: onebit, exchange: allgather, "
         "error_feedback: false, majority_vote: true }"}}},
      {{{"transport.window", "64KiB"}, {"transport.eager_limit", "0B"}},
       {{"topology", "network_model: cm02",
         "network_model: cm02\ntransport: { window: 64KiB, eager_limit: 0B }"}}},
      {{{"transport.kind", "rdma"}, {"transport.eager_limit", "16KiB"}},
       {{"topology", "network_model: cm02",
         "network_model: cm02\ntransport: { kind: rdma, eager_limit: 16KiB }"}}},
  };
  return cases;
}

TEST(GuiFields, EveryNewFieldActsAsTheSameYamlEdit) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-new-fields";
  for (const auto& c : field_cases()) {
    SCOPED_TRACE(c.steps.back().key + " = " + c.steps.back().text);
    MainWindow w(core::load_plan(edited_quickstart(dir, {})));
    auto before = throughput_points(w);
    for (const auto& s : c.steps) enter(w.plan_panel(), s.key, s.text);
    EXPECT_NE(throughput_points(w), before);
    std::string edited = edited_quickstart(dir, c.yaml);
    Curves yaml = compute_curves(core::load_plan(edited), w.curves().workers);
    expect_chart_equals_curves(w, yaml, 1e-12);
  }
  // The command line agrees with one of them (the chart against `scaleout sweep`'s CSV).
  MainWindow w(core::load_plan(edited_quickstart(dir, {})));
  for (const auto& s : field_cases()[13].steps) enter(w.plan_panel(), s.key, s.text);
  expect_chart_equals_csv(
      w, cli_sweep(edited_quickstart(dir, field_cases()[13].yaml), dir / "sweep.csv"));
  fs::remove_all(dir);
}

TEST(GuiFields, FieldsThatDoNotApplyAreDisabledAndSayWhy) {
  MainWindow w(quickstart());
  PlanPanel* panel = w.plan_panel();
  auto off = [&](const char* key) { return !panel->editor(key)->isEnabled(); };
  auto why = [&](const char* key) { return panel->editor(key)->toolTip().toStdString(); };
  EXPECT_TRUE(off("network.hosts_per_rack"));
  EXPECT_EQ(why("network.hosts_per_rack"), "applies to network kind two_tier");
  EXPECT_TRUE(off("network.k"));
  EXPECT_TRUE(off("network.dims"));
  EXPECT_TRUE(off("strategy.staleness_bound"));
  EXPECT_EQ(why("strategy.staleness_bound"),
            "bounded staleness applies to mode: async (empty: unbounded)");
  EXPECT_FALSE(off("strategy.softsync"));
  EXPECT_TRUE(off("training.fusion.bucket_cap"));
  EXPECT_TRUE(off("intra_node.gpus_per_switch"));
  EXPECT_FALSE(off("training.fusion_buffer"));
  EXPECT_TRUE(off("training.compression.density"));
  EXPECT_EQ(why("training.compression.density"), "applies to compression topk and randomk");
  EXPECT_TRUE(off("strategy.delay_compensation.lambda"));
  EXPECT_EQ(why("strategy.delay_compensation.lambda"), "delay compensation applies to mode: async");

  EXPECT_FALSE(off("transport.window"));
  enter(panel, "transport.kind", "rdma");
  EXPECT_TRUE(off("transport.window"));
  EXPECT_EQ(why("transport.window"), "applies to transport tcp");
  enter(panel, "transport.kind", "tcp");
  EXPECT_FALSE(off("transport.window"));

  EXPECT_TRUE(off("training.compression.shared_indices"));
  EXPECT_TRUE(off("training.compression.majority_vote"));
  enter(panel, "training.compression.kind", "randomk");
  EXPECT_FALSE(off("training.compression.density"));
  EXPECT_FALSE(off("training.compression.shared_indices"));
  EXPECT_TRUE(off("training.compression.chunk"));
  enter(panel, "network.kind", "two_tier");
  EXPECT_FALSE(off("network.hosts_per_rack"));
  EXPECT_EQ(dynamic_cast<QLineEdit*>(panel->editor("network.hosts_per_rack"))->text(), "4");
  EXPECT_TRUE(off("network.k"));
  enter(panel, "strategy.mode", "async");
  EXPECT_FALSE(off("strategy.staleness_bound"));
  EXPECT_FALSE(off("strategy.delay_compensation.lambda"));
  EXPECT_TRUE(off("strategy.delay_compensation.learning_rate"));  // lambda first
  EXPECT_TRUE(off("strategy.softsync"));
  EXPECT_EQ(why("strategy.softsync"), "softsync applies to mode: sync");
  enter(panel, "training.fusion.kind", "ddp");
  EXPECT_TRUE(off("training.fusion_buffer"));
  EXPECT_FALSE(off("training.fusion.bucket_cap"));
  enter(panel, "network.kind", "torus2d");
  EXPECT_TRUE(off("cluster.nics_per_node"));
  EXPECT_EQ(why("cluster.nics_per_node"),
            "a torus2d network joins nodes directly, without NICs to add rails to");
}

TEST(GuiFields, WrongValuesAreMarkedWithTheLoadersMessage) {
  MainWindow w(quickstart());
  PlanPanel* panel = w.plan_panel();
  auto good = throughput_points(w);
  type_into(panel->editor("strategy.grid"), "3x3");
  EXPECT_TRUE(
      panel->error("strategy.grid").contains("grid 3x3 does not multiply to the 64 workers"))
      << panel->error("strategy.grid").toStdString();
  type_into(panel->editor("strategy.grid"), "3by3");
  EXPECT_TRUE(panel->error("strategy.grid").contains("field 'strategy.torus2d.grid'"))
      << panel->error("strategy.grid").toStdString();
  EXPECT_EQ(throughput_points(w), good);
  type_into(panel->editor("strategy.grid"), "auto");
  EXPECT_TRUE(panel->error("strategy.grid").isEmpty());

  enter(panel, "network.kind", "fat_tree");
  auto fat = throughput_points(w);
  type_into(panel->editor("network.k"), "3");
  QString message = panel->error("network.k");
  EXPECT_TRUE(message.contains("field 'cluster.network.k': a fat tree's k must be even"))
      << message.toStdString();
  EXPECT_FALSE(message.contains("scaleout-edit")) << "the temporary file is not named";
  EXPECT_EQ(panel->editor("network.k")->toolTip(), message);
  EXPECT_EQ(throughput_points(w), fat);

  enter(panel, "strategy.replicas_to_aggregate", "4");
  type_into(panel->editor("strategy.softsync"), "2");
  EXPECT_TRUE(panel->error("strategy.softsync").contains("not both"))
      << panel->error("strategy.softsync").toStdString();
  enter(panel, "training.fusion.kind", "ddp");
  type_into(panel->editor("training.fusion.bucket_cap"), "2");  // on the way to 25MiB
  EXPECT_TRUE(panel->error("training.fusion.bucket_cap")
                  .contains("field 'training.fusion.first_bucket': larger than bucket_cap"))
      << panel->error("training.fusion.bucket_cap").toStdString();
  enter(panel, "training.fusion.kind", "horovod");
  type_into(panel->editor("training.fusion.threshold"), "2");  // on the way to 25MiB
  EXPECT_TRUE(panel->error("training.fusion.threshold")
                  .contains("field 'training.fusion.threshold': at least 64KiB in the window"))
      << panel->error("training.fusion.threshold").toStdString();

  // A direct field checked against the YAML-edited plan names no line of a temporary file.
  enter(panel, "strategy.mode", "async");
  enter(panel, "strategy.staleness_bound", "4");
  dynamic_cast<QComboBox*>(panel->editor("strategy.kind"))->setCurrentText("ps");
  emit dynamic_cast<QComboBox*>(panel->editor("strategy.kind"))->textActivated("ps");
  EXPECT_TRUE(panel->error("strategy.kind")
                  .startsWith(QString::fromStdString(kQuickstart) +
                              ": field 'strategy.staleness_bound': bounded staleness needs "
                              "servers: 1"))
      << panel->error("strategy.kind").toStdString();
}

TEST(GuiFields, AModelTheClosedFormDoesNotCoverIsSaidBesideTheFields) {
  MainWindow w(quickstart());
  EXPECT_FALSE(w.plan_panel()->warnings().contains("contention inside this network"));
  enter(w.plan_panel(), "network.kind", "fat_tree");
  EXPECT_TRUE(w.plan_panel()->warnings().contains(
      "warning: ps, ring, torus2d, hierarchical_ring: contention inside this network"))
      << w.plan_panel()->warnings().toStdString();
}

// The fields' plan against the saved file's plan, knob by knob, and their curves.
void expect_saved_plan_loads_back(MainWindow& w, const fs::path& file) {
  QString said = w.save_plan_as(QString::fromStdString(file.string()));
  ASSERT_TRUE(said.startsWith("saved")) << said.toStdString();
  core::Plan loaded = core::load_plan(file.string());
  const core::Plan& p = w.plan_panel()->what_if().plan;
  const auto &n = p.cluster.network, &ln = loaded.cluster.network;
  EXPECT_EQ(ln.kind, n.kind);
  EXPECT_EQ(ln.hosts_per_rack, n.hosts_per_rack);
  EXPECT_EQ(ln.uplink.bandwidth, n.uplink.bandwidth);
  EXPECT_EQ(ln.fat_tree_k, n.fat_tree_k);
  EXPECT_EQ(ln.dims, n.dims);
  EXPECT_EQ(loaded.cluster.nics_per_node, p.cluster.nics_per_node);
  EXPECT_EQ(loaded.cluster.intra_fabric.kind, p.cluster.intra_fabric.kind);
  EXPECT_EQ(loaded.cluster.intra_fabric.gpus_per_switch, p.cluster.intra_fabric.gpus_per_switch);
  EXPECT_EQ(loaded.cluster.intra_fabric.switch_uplink.bandwidth,
            p.cluster.intra_fabric.switch_uplink.bandwidth);
  const auto &f = p.training.fusion, &lf = loaded.training.fusion;
  EXPECT_EQ(lf.kind, f.kind);
  EXPECT_EQ(lf.cycle_time, f.cycle_time);
  EXPECT_EQ(lf.threshold, f.threshold);
  EXPECT_EQ(lf.bucket_cap, f.bucket_cap);
  EXPECT_EQ(lf.first_bucket, f.first_bucket);
  EXPECT_EQ(loaded.training.efficiency, p.training.efficiency);
  const auto &s = p.strategy, &ls = loaded.strategy;
  EXPECT_EQ(ls.kind, s.kind);
  EXPECT_EQ(ls.grid, s.grid);
  EXPECT_EQ(ls.ps_mode, s.ps_mode);
  EXPECT_EQ(ls.replicas_to_aggregate, s.replicas_to_aggregate);
  EXPECT_EQ(ls.softsync, s.softsync);
  EXPECT_EQ(ls.staleness_bound, s.staleness_bound);
  EXPECT_EQ(ls.ps_local_aggregation, s.ps_local_aggregation);
  Curves again = compute_curves(loaded, w.curves().workers);
  auto points = throughput_points(w);
  for (const auto& c : again.curves)
    for (const auto& r : c.points)
      expect_relative(points[{c.strategy, r.workers}], r.throughput_samples_per_s, 1e-12,
                      c.strategy);
}

TEST(GuiFields, SavedPlanWithEveryNewKnobLoadsBack) {
  fs::path dir = fs::temp_directory_path() / "scaleout-gui-save-knobs";
  fs::create_directories(dir);
  // Three plans: the knobs of one network kind, fusion kind and PS mode exclude the others'.
  const std::vector<std::vector<Step>> plans = {
      {{"network.kind", "two_tier"},
       {"network.hosts_per_rack", "8"},
       {"network.uplink", "200Gbps"},
       {"training.fusion.kind", "ddp"},
       {"training.fusion.bucket_cap", "8MiB"},
       {"training.fusion.first_bucket", "512KiB"},
       {"training.efficiency", "0.5"},
       {"strategy.grid", "16x4"},
       {"strategy.replicas_to_aggregate", "6"},
       {"strategy.local_aggregation", "node"},
       {"cluster.nics_per_node", "2"},
       {"intra_node.kind", "pcie_tree"},
       {"intra_node.gpus_per_switch", "4"},
       {"intra_node.uplink", "16GB/s"},
       {"strategy.kind", "torus2d"}},
      {{"network.kind", "fat_tree"},
       {"network.k", "8"},
       {"training.fusion.kind", "horovod"},
       {"training.fusion.cycle_time", "5ms"},
       {"training.fusion.threshold", "16MiB"},
       {"strategy.servers", "1"},
       {"strategy.mode", "async"},
       {"strategy.staleness_bound", "4"},
       {"strategy.kind", "ps"}},
      {{"network.kind", "torus2d"},
       {"network.dims", "4x4"},
       {"strategy.softsync", "2"},
       {"intra_node.kind", "nvswitch"}},
  };
  for (std::size_t i = 0; i < plans.size(); ++i) {
    SCOPED_TRACE(i);
    MainWindow w(quickstart());
    for (const auto& s : plans[i]) enter(w.plan_panel(), s.key, s.text);
    expect_saved_plan_loads_back(w, dir / ("plan" + std::to_string(i) + ".yaml"));
  }
  fs::remove_all(dir);
}

TEST(GuiFields, PanelGroupsItsFields) {
  MainWindow w(quickstart());
  w.show();
  QStringList titles;
  for (auto* box : w.plan_panel()->findChildren<QGroupBox*>()) titles << box->title();
  EXPECT_EQ(titles,
            QStringList({"Workload", "Training", "Strategy", "Parallelism", "Cluster", "Network"}));
  auto* network = w.plan_panel()->findChild<QGroupBox*>("group-Network");
  ASSERT_NE(network, nullptr);
  EXPECT_TRUE(network->isAncestorOf(w.plan_panel()->editor("network.kind")));
  EXPECT_TRUE(network->isAncestorOf(w.plan_panel()->editor("nic.bandwidth")));
  EXPECT_TRUE(network->isAncestorOf(w.plan_panel()->editor("transport.window")));
  enter(w.plan_panel(), "network.kind", "two_tier");
  fs::create_directories(kShots);
  // The whole panel, scrolled or not: the widget inside the scroll area drawn at its full height.
  QWidget* panel = w.plan_panel();
  panel->resize(panel->width(), panel->sizeHint().height());
  ASSERT_TRUE(panel->grab().save(QString::fromStdString((kShots / "plan-panel.png").string())));
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  QApplication::processEvents();  // the charts lay their legends out on the next turn
  ASSERT_TRUE(w.grab().save(QString::fromStdString((kShots / "window-fields.png").string())));
}

}  // namespace
}  // namespace scaleout::gui
