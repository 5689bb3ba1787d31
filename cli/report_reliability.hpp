// The lines `simulate` prints for a plan with failure rates (core::ReliabilityOutcome).
#pragma once

#include <cstdio>

#include "core/results/result.hpp"

namespace scaleout::cli {

void print_reliability(std::FILE* out, const core::ReliabilityOutcome& o);

}  // namespace scaleout::cli
