// Printing results for people: a one-run summary and a sweep table.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/results/result.hpp"

namespace scaleout::cli {

void print_summary(std::FILE* out, const core::RunResult& r);
// Writes the result JSON, stamped with `plan` (core/plan/plan_stamp.hpp), to `path` (atomically;
// none when empty) and prints it on stdout with `json`, else prints the summary. Returns false when
// the summary was printed (callers may add). Results are stamped here, where they leave for a file
// or another tool, not in the engines: a sweep's thousands of predictions need no stamp.
bool emit_result(const core::RunResult& r, const core::Plan& plan, const std::string& path,
                 bool json);
// Each warning the results carry, once, with how many rows it applies to when there are several.
void print_warnings(std::FILE* out, const std::vector<core::RunResult>& rows);
// `varied` names the fields `sweep --vary` varied; `values` holds each row's (a column each).
void print_sweep_table(std::FILE* out, const std::vector<core::RunResult>& rows,
                       const std::vector<std::string>& varied = {},
                       const std::vector<std::vector<std::string>>& values = {});
// nccl-tests' table for an executed collective run: ours, then Gloo's own algorithms.
void print_collective_table(std::FILE* out, const core::RunResult& r);
// Predicted against measured: step time, throughput, busbw and staleness with relative errors.
void print_comparison(std::FILE* out, const core::RunResult& predicted,
                      const core::RunResult& measured);

}  // namespace scaleout::cli
