#include "cli/export_megatron.hpp"

#include <sstream>

#include "core/formats/megatron_args.hpp"
#include "core/parallel/model_split.hpp"

namespace scaleout::cli {

namespace {

// A value as one shell word: quoted when the shell would read its brackets, parentheses or stars
// (--moe-layer-freq's Python list).
std::string shell_word(const std::string& value) {
  if (value.find_first_of("()[]*") == std::string::npos) return value;
  return "'" + value + "'";
}

}  // namespace

std::string megatron_text(const core::Plan& plan) {
  std::vector<std::string> args = core::megatron_arguments(plan);
  core::ModelSplit s = core::model_split(plan);
  std::ostringstream out;
  out << "# Megatron-LM (pretrain_gpt.py) for " << plan.file << ": " << plan.training.workers
      << " GPUs as tensor " << s.tensor << " x pipeline " << s.pipeline;
  if (s.context > 1) out << " x context " << s.context;
  out << " x data " << s.replicas() << " (the data degree is the world size over tensor x pipeline"
      << (s.context > 1 ? " x context" : "") << ")\n";
  for (std::size_t i = 0; i < args.size(); ++i) {
    bool has_value = i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
    out << args[i];
    if (has_value) out << " " << shell_word(args[++i]);
    out << (i + 1 < args.size() ? " \\\n" : "\n");
  }
  return out.str();
}

}  // namespace scaleout::cli
