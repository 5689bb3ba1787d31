// The element types a gradient is moved in, on its own so that device code (C++17 under nvcc)
// can name them.
#pragma once

#include <string>

namespace scaleout::exec {

enum class ElementType { kFp32, kFp16, kBf16 };

// "fp32" | "fp16" | "bf16" (as the plan's gradient_precision); anything else is fp32.
ElementType element_type(const std::string& precision);
int element_bytes(ElementType type);
const char* element_name(
    ElementType type);  // "float" | "half" | "bfloat16", as nccl-tests names them

}  // namespace scaleout::exec
