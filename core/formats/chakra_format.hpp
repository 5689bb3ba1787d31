// Chakra execution traces (MLCommons' format, which ASTRA-sim replays) on the wire: each file is
// a GlobalMetadata message, then one Node message per operation, each preceded by its length as
// a varint (protobuf's delimited stream). Only the fields scaleout writes are here; their numbers
// are those of Chakra's schema (schema/protobuf/et_def.proto, package ChakraProtoMsg).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scaleout::core {

// Chakra's NodeType and CollectiveCommType values.
enum class ChakraNodeType { kComputation = 4, kSend = 5, kReceive = 6, kCollective = 7 };
enum class ChakraCollective { kAllReduce = 0, kAllGather = 2, kAllToAll = 6, kReduceScatter = 7 };

// One AttributeProto: a name and a value of one of the kinds below.
struct ChakraAttribute {
  enum class Kind { kInt32, kInt64, kUint64, kBool, kString };
  std::string name;
  Kind kind = Kind::kInt64;
  std::int64_t integer = 0;  // int32, int64, uint64 (as its bits) and bool values
  std::string text;          // string values

  static ChakraAttribute int32(std::string name, std::int32_t value);
  static ChakraAttribute int64(std::string name, std::int64_t value);
  static ChakraAttribute uint64(std::string name, std::uint64_t value);
  static ChakraAttribute boolean(std::string name, bool value);
  static ChakraAttribute string(std::string name, std::string value);
};

struct ChakraNode {
  std::uint64_t id = 0;
  std::string name;
  ChakraNodeType type = ChakraNodeType::kComputation;
  std::vector<std::uint64_t> data_deps;  // the nodes this one waits for
  std::uint64_t duration_micros = 0;
  std::vector<ChakraAttribute> attributes;
};

// The encoded messages (protobuf wire format).
std::string encode_global_metadata(const std::vector<ChakraAttribute>& attributes);
std::string encode_node(const ChakraNode& node);

// Appends `message` to `stream` with its length first, as a Chakra file holds each message.
void append_delimited(std::string& stream, const std::string& message);

}  // namespace scaleout::core
