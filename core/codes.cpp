// The code rules of parcomp's formats, shared by the GPU kernels, the CPU codec and the oracles. See codes.hpp.
#include "codes.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

namespace parcomp::codes {

Histogram byte_histogram(std::span<const std::uint8_t> bytes) {
  Histogram h{};
  for (const std::uint8_t b : bytes) ++h[b];
  return h;
}


namespace {
std::vector<int> used_symbols(const Histogram& freq) {
  std::vector<int> used;
  for (int s = 0; s < 256; ++s)
    if (freq[s] != 0) used.push_back(s);
  // Ascending weight; ties by symbol, so the result is deterministic.
  std::stable_sort(used.begin(), used.end(), [&](int a, int b) { return freq[a] < freq[b]; });
  return used;
}
}  // namespace

std::array<std::uint8_t, 256> code_lengths(const Histogram& freq, int max_length) {
  if (max_length < 1 || max_length > 32)
    throw std::invalid_argument("code_lengths: max_length must be in 1..32, got " + std::to_string(max_length));
  std::array<std::uint8_t, 256> lengths{};
  const std::vector<int> leaves = used_symbols(freq);
  const std::size_t n = leaves.size();
  if (n == 0) return lengths;
  if (n == 1) {
    lengths[leaves[0]] = 1;
    return lengths;
  }
  if (max_length < 32 && n > (std::size_t{1} << max_length))
    throw std::invalid_argument("code_lengths: " + std::to_string(n) + " symbols do not fit in codes of at most " +
                                std::to_string(max_length) + " bits");
  // Package-merge: an item is a weight and the leaves it contains (a multiset of symbols).
  struct Item {
    std::uint64_t weight;
    std::vector<std::uint16_t> symbols;
  };
  std::vector<Item> leaf_items;
  for (const int s : leaves) leaf_items.push_back({freq[s], {static_cast<std::uint16_t>(s)}});
  std::vector<Item> level = leaf_items;
  for (int depth = 1; depth < max_length; ++depth) {
    std::vector<Item> packages;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
      Item p{level[i].weight + level[i + 1].weight, level[i].symbols};
      p.symbols.insert(p.symbols.end(), level[i + 1].symbols.begin(), level[i + 1].symbols.end());
      packages.push_back(std::move(p));
    }
    std::vector<Item> merged;
    merged.reserve(leaf_items.size() + packages.size());
    std::size_t a = 0, b = 0;
    while (a < leaf_items.size() || b < packages.size()) {  // leaves first on equal weight
      if (b == packages.size() || (a < leaf_items.size() && leaf_items[a].weight <= packages[b].weight))
        merged.push_back(leaf_items[a++]);
      else
        merged.push_back(std::move(packages[b++]));
    }
    level = std::move(merged);
  }
  for (std::size_t i = 0; i < 2 * n - 2; ++i)
    for (const std::uint16_t s : level[i].symbols) ++lengths[s];
  return lengths;
}

std::array<std::uint8_t, 256> huffman_lengths_unlimited(const Histogram& freq) {
  std::array<std::uint8_t, 256> lengths{};
  const std::vector<int> leaves = used_symbols(freq);
  if (leaves.empty()) return lengths;
  if (leaves.size() == 1) {
    lengths[leaves[0]] = 1;
    return lengths;
  }
  // Nodes: leaves then internal; parent links give depths.
  std::vector<std::uint64_t> weight;
  std::vector<int> parent;
  using Entry = std::pair<std::uint64_t, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (const int s : leaves) {
    queue.push({freq[s], static_cast<int>(weight.size())});
    weight.push_back(freq[s]);
    parent.push_back(-1);
  }
  while (queue.size() > 1) {
    const auto [wa, a] = queue.top();
    queue.pop();
    const auto [wb, b] = queue.top();
    queue.pop();
    const int node = static_cast<int>(weight.size());
    weight.push_back(wa + wb);
    parent.push_back(-1);
    parent[a] = node;
    parent[b] = node;
    queue.push({wa + wb, node});
  }
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    int depth = 0;
    for (int v = static_cast<int>(i); parent[v] != -1; v = parent[v]) ++depth;
    lengths[leaves[i]] = static_cast<std::uint8_t>(depth);
  }
  return lengths;
}

CodeTable canonical_codes(const std::array<std::uint8_t, 256>& lengths) {
  std::vector<int> order;
  for (int s = 0; s < 256; ++s)
    if (lengths[s] != 0) order.push_back(s);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lengths[a] < lengths[b]; });
  CodeTable table{};
  std::uint64_t code = 0;
  int previous = 0;
  for (const int s : order) {
    code <<= (lengths[s] - previous);
    previous = lengths[s];
    table[s] = {static_cast<std::uint32_t>(code), lengths[s]};
    ++code;
  }
  return table;
}

std::uint64_t kraft_sum_scaled(const std::array<std::uint8_t, 256>& lengths) {
  std::uint64_t sum = 0;
  for (const std::uint8_t l : lengths)
    if (l != 0) sum += std::uint64_t{1} << (32 - l);
  return sum;
}


std::uint64_t encoded_bits(const Histogram& freq, const std::array<std::uint8_t, 256>& lengths) {
  std::uint64_t bits = 0;
  for (int s = 0; s < 256; ++s) bits += freq[s] * lengths[s];
  return bits;
}

std::array<std::uint8_t, 256> huffman_code_lengths(const Histogram& freq, int max_length) {
  auto lengths = huffman_lengths_unlimited(freq);
  if (*std::max_element(lengths.begin(), lengths.end()) > max_length) lengths = code_lengths(freq, max_length);
  return lengths;
}

}  // namespace parcomp::codes
