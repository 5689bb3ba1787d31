#include "core/formats/moe_layer_pattern.hpp"

#include <cctype>
#include <stdexcept>
#include <vector>

namespace scaleout::core {

namespace {

// A recursive-descent reader of `[int, ...] * int + ...`, spaces removed beforehand.
class ListReader {
 public:
  explicit ListReader(std::string text) : text_(std::move(text)) {}

  std::optional<std::vector<int>> read() {
    std::vector<int> out;
    bool parenthesized = take('(');
    do {
      if (!term(out)) return std::nullopt;
    } while (take('+'));
    if (parenthesized && !take(')')) return std::nullopt;
    if (at_ != text_.size()) return std::nullopt;
    return out;
  }

 private:
  bool take(char c) {
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  std::optional<long> number() {
    std::size_t start = at_;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) ++at_;
    if (at_ == start || at_ - start > 9) return std::nullopt;
    return std::stol(text_.substr(start, at_ - start));
  }
  bool term(std::vector<int>& out) {
    if (!take('[')) return false;
    std::vector<int> items;
    do {
      std::optional<long> v = number();
      if (!v || *v > 1) return false;
      items.push_back(static_cast<int>(*v));
    } while (take(','));
    if (!take(']')) return false;
    long repeat = 1;
    if (take('*')) {
      std::optional<long> n = number();
      if (!n) return false;
      repeat = *n;
    }
    for (long i = 0; i < repeat && out.size() < (1u << 20); ++i)
      out.insert(out.end(), items.begin(), items.end());
    return true;
  }

  std::string text_;
  std::size_t at_ = 0;
};

bool is_moe_layer(const MoeLayerPattern& p, int layer) {
  return layer >= p.first_dense && layer % p.every == 0;
}

}  // namespace

std::optional<MoeLayerPattern> parse_moe_layer_list(const std::string& text, int layers) {
  std::string compact;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  std::optional<std::vector<int>> list = ListReader(compact).read();
  if (!list) return std::nullopt;
  if (static_cast<int>(list->size()) != layers)
    throw std::invalid_argument("lists " + std::to_string(list->size()) + " layers, not the " +
                                std::to_string(layers) + " of --num-layers");
  int first = 0;
  while (first < layers && (*list)[first] == 0) ++first;
  if (first == layers) throw std::invalid_argument("has no MoE layer (no 1)");
  for (int every = 1; every <= layers; ++every) {
    MoeLayerPattern p{every, first};
    bool same = first % every == 0;
    for (int i = 0; same && i < layers; ++i) same = is_moe_layer(p, i) == ((*list)[i] == 1);
    if (same) return p;
  }
  throw std::invalid_argument(
      "places its MoE layers otherwise than every n-th layer after the first dense ones, which "
      "moe.every and moe.first_dense describe");
}

std::string moe_layer_freq_text(const TransformerShape& t) {
  const MoeShape& m = *t.moe;
  if (m.first_dense == 0) return std::to_string(m.every);
  if (m.every == 1)
    return "([0]*" + std::to_string(m.first_dense) + "+[1]*" +
           std::to_string(t.layers - m.first_dense) + ")";
  std::string out = "[";
  for (int i = 0; i < t.layers; ++i)
    out += std::string(i ? "," : "") + (is_moe_layer({m.every, m.first_dense}, i) ? "1" : "0");
  return out + "]";
}

}  // namespace scaleout::core
