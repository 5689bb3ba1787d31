// Chakra execution traces on the wire (core/formats/chakra_format.hpp).
#include "core/formats/chakra_format.hpp"

namespace scaleout::core {

namespace {

// Protobuf's wire types.
constexpr int kVarint = 0;
constexpr int kLengthDelimited = 2;

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void put_key(std::string& out, int field, int wire_type) {
  put_varint(out, static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wire_type));
}

void put_varint_field(std::string& out, int field, std::uint64_t value) {
  put_key(out, field, kVarint);
  put_varint(out, value);
}

void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}

// AttributeProto: name = 1; of its value oneof, int32_val = 7, int64_val = 9, uint64_val = 13,
// bool_val = 27, string_val = 29. A oneof member is written even when zero: that says which it is.
std::string encode_attribute(const ChakraAttribute& a) {
  std::string out;
  put_bytes_field(out, 1, a.name);
  // Negative int32 and int64 values are sign-extended to 64 bits, as protobuf encodes them.
  auto bits = static_cast<std::uint64_t>(a.integer);
  switch (a.kind) {
    case ChakraAttribute::Kind::kInt32:
      put_varint_field(out, 7, bits);
      break;
    case ChakraAttribute::Kind::kInt64:
      put_varint_field(out, 9, bits);
      break;
    case ChakraAttribute::Kind::kUint64:
      put_varint_field(out, 13, bits);
      break;
    case ChakraAttribute::Kind::kBool:
      put_varint_field(out, 27, a.integer != 0);
      break;
    case ChakraAttribute::Kind::kString:
      put_bytes_field(out, 29, a.text);
      break;
  }
  return out;
}

ChakraAttribute make_attribute(std::string name, ChakraAttribute::Kind kind, std::int64_t value) {
  ChakraAttribute a;
  a.name = std::move(name);
  a.kind = kind;
  a.integer = value;
  return a;
}

}  // namespace

ChakraAttribute ChakraAttribute::int32(std::string name, std::int32_t value) {
  return make_attribute(std::move(name), Kind::kInt32, value);
}
ChakraAttribute ChakraAttribute::int64(std::string name, std::int64_t value) {
  return make_attribute(std::move(name), Kind::kInt64, value);
}
ChakraAttribute ChakraAttribute::uint64(std::string name, std::uint64_t value) {
  return make_attribute(std::move(name), Kind::kUint64, static_cast<std::int64_t>(value));
}
ChakraAttribute ChakraAttribute::boolean(std::string name, bool value) {
  return make_attribute(std::move(name), Kind::kBool, value ? 1 : 0);
}
ChakraAttribute ChakraAttribute::string(std::string name, std::string value) {
  ChakraAttribute a = make_attribute(std::move(name), Kind::kString, 0);
  a.text = std::move(value);
  return a;
}

// GlobalMetadata: attr = 2.
std::string encode_global_metadata(const std::vector<ChakraAttribute>& attributes) {
  std::string out;
  for (const ChakraAttribute& a : attributes) put_bytes_field(out, 2, encode_attribute(a));
  return out;
}

// Node: id = 1, name = 2, type = 3, data_deps = 5 (packed), duration_micros = 7, attr = 10.
std::string encode_node(const ChakraNode& node) {
  std::string out;
  put_varint_field(out, 1, node.id);
  put_bytes_field(out, 2, node.name);
  put_varint_field(out, 3, static_cast<std::uint64_t>(node.type));
  if (!node.data_deps.empty()) {
    std::string packed;
    for (std::uint64_t dep : node.data_deps) put_varint(packed, dep);
    put_bytes_field(out, 5, packed);
  }
  put_varint_field(out, 7, node.duration_micros);
  for (const ChakraAttribute& a : node.attributes) put_bytes_field(out, 10, encode_attribute(a));
  return out;
}

void append_delimited(std::string& stream, const std::string& message) {
  put_varint(stream, message.size());
  stream += message;
}

}  // namespace scaleout::core
