#include "atoms/atom_store.hpp"

#include <type_traits>

namespace tessera {

namespace {
// The gather runs on all threads: a molecular run permutes some 70 arrays
// at each sort, which on one thread was most of the sort's time.
template <class T>
void apply_order(std::vector<T>& v, const std::vector<std::size_t>& order, std::vector<T>& scratch) {
  scratch.resize(order.size());
  const long n = static_cast<long>(order.size());
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long k = 0; k < n; ++k) scratch[k] = v[order[k]];
    // Copied back, not swapped: v keeps its capacity for the ghosts.
#pragma omp for schedule(static)
    for (long k = 0; k < n; ++k) v[k] = scratch[k];
  }
}
}  // namespace

void AtomStore::resize_local(std::size_t n) {
  nlocal = n;
  nghost = 0;
  for_each_field(*this, kAnyField, [n](auto& v, FieldInfo) { v.resize(n); });
}

void AtomStore::resize_ghosts(std::size_t n) {
  nghost = n;
  ghost_shares.threads = 0;
  const std::size_t all = nlocal + n;
  for_each_field(*this, kFieldGhost, [all](auto& v, FieldInfo) { v.resize(all); });
}

std::vector<std::size_t> AtomStore::local_order_by_id() const {
  std::vector<std::size_t> order(nlocal);
  for (std::size_t i = 0; i < nlocal; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return id[p] < id[q]; });
  return order;
}

void AtomStore::permute_local(const std::vector<std::size_t>& order) {
  nghost = 0;
  for_each_field(*this, kAnyField, [&](auto& v, FieldInfo) {
    v.resize(nlocal);
    std::remove_reference_t<decltype(v)> scratch;
    apply_order(v, order, scratch);
  });
}

}  // namespace tessera
