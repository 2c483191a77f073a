// The Huffman tree on the GPU, shared by the Huffman stage's tree kernels (huffman.cu) and the
// multi-table code (multi.cu): node keys, the shared state, and the merges by sorted leaves and
// two queues. Device code only; every function is called by the whole thread block.
#pragma once

#include <cstdint>

namespace parcomp::huffman::detail {

constexpr int kTreeSearchThreads = 128;  // the paper tree's block

// Node keys: (weight << 9) | node; leaves are nodes 0..255 (the symbol), internal nodes 256 + j in
// creation order. The least key wins, so ties go to the lower node, as the reference's queue.
constexpr unsigned long long kNone = ~0ull;
constexpr int kNodes = 512;

__device__ __forceinline__ void keep_two(unsigned long long& a, unsigned long long& b, unsigned long long x) {
  if (x < a) {
    b = a;
    a = x;
  } else if (x < b) {
    b = x;
  }
}

struct TreeShared {
  unsigned long long key[kNodes];
  short parent[kNodes];
  unsigned long long best[kTreeSearchThreads][2];
  int used;
};

__device__ inline void tree_init(const std::uint64_t* hist, TreeShared& s) {
  if (threadIdx.x == 0) s.used = 0;
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kNodes; i += static_cast<int>(blockDim.x)) {
    s.parent[i] = -1;
    s.key[i] = kNone;
    if (i < 256 && hist[i] != 0) {
      s.key[i] = (static_cast<unsigned long long>(hist[i]) << 9) | static_cast<unsigned>(i);
      atomicAdd(&s.used, 1);
    }
  }
  __syncthreads();
}

// Merges the two least nodes (keys a < b) into node `node`.
__device__ __forceinline__ void tree_merge(TreeShared& s, unsigned long long a, unsigned long long b, int node) {
  const int ia = static_cast<int>(a & 511u), ib = static_cast<int>(b & 511u);
  s.key[node] = (((a >> 9) + (b >> 9)) << 9) | static_cast<unsigned>(node);
  s.parent[ia] = static_cast<short>(node);
  s.parent[ib] = static_cast<short>(node);
  s.key[ia] = kNone;
  s.key[ib] = kNone;
}

__device__ inline void tree_lengths(const TreeShared& s, std::uint8_t* lengths, std::uint32_t* depth) {
  for (int c = static_cast<int>(threadIdx.x); c < 256; c += static_cast<int>(blockDim.x)) {
    int d = 0;
    if (s.used == 1) {
      d = s.key[c] != kNone ? 1 : 0;
    } else {
      for (int v = c; s.parent[v] != -1; v = s.parent[v]) ++d;
    }
    lengths[c] = static_cast<std::uint8_t>(d);
    atomicMax(depth, static_cast<std::uint32_t>(d));
  }
}

struct TreeQueues {
  unsigned long long leaves[256];  // used leaves' keys, ascending
  unsigned long long internal[256];
};

// After tree_init: all merges (256 threads rank the leaves, one thread merges), synchronised.
__device__ inline void tree_queues(TreeShared& s, TreeQueues& q) {
  const int t = static_cast<int>(threadIdx.x);
  const unsigned long long mine = s.key[t];
  if (mine != kNone) {
    int rank = 0;
    for (int i = 0; i < 256; ++i) rank += s.key[i] < mine ? 1 : 0;
    q.leaves[rank] = mine;
  }
  __syncthreads();
  if (t == 0) {
    // The queue fronts stay in registers; each take reads at most one new front.
    const int used = s.used;
    int leaf = 0, front = 0;
    unsigned long long lk = used > 0 ? q.leaves[0] : kNone, qk = kNone;
    auto take = [&](int created) -> unsigned long long {
      unsigned long long r;
      if (lk < qk) {
        r = lk;
        ++leaf;
        lk = leaf < used ? q.leaves[leaf] : kNone;
      } else {
        r = qk;
        ++front;
        qk = front < created ? q.internal[front] : kNone;
      }
      return r;
    };
    for (int j = 0; j + 1 < used; ++j) {
      const unsigned long long a = take(j), b = take(j);
      const int node = 256 + j;
      const unsigned long long key = (((a >> 9) + (b >> 9)) << 9) | static_cast<unsigned>(node);
      q.internal[j] = key;
      if (front == j) qk = key;  // the internal queue was empty
      s.parent[a & 511u] = static_cast<short>(node);
      s.parent[b & 511u] = static_cast<short>(node);
    }
  }
  __syncthreads();
}

}  // namespace parcomp::huffman::detail
