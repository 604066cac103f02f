#include "atoms/atom_store.hpp"

#include <type_traits>

namespace tessera {

namespace {
template <class T>
void apply_order(std::vector<T>& v, const std::vector<std::size_t>& order, std::vector<T>& scratch) {
  scratch.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) scratch[k] = v[order[k]];
  std::copy(scratch.begin(), scratch.end(), v.begin());
}
}  // namespace

void AtomStore::resize_local(std::size_t n) {
  nlocal = n;
  nghost = 0;
  for_each_field(*this, kAnyField, [n](auto& v, FieldInfo) { v.resize(n); });
}

void AtomStore::resize_ghosts(std::size_t n) {
  nghost = n;
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
