// Printing results for people: a one-run summary and a sweep table.
#pragma once

#include <cstdio>
#include <vector>

#include "core/result.hpp"

namespace scaleout::cli {

void print_summary(std::FILE* out, const core::RunResult& r);
void print_sweep_table(std::FILE* out, const std::vector<core::RunResult>& rows);

}  // namespace scaleout::cli
