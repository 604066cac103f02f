#include "atoms/atom_store.hpp"

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
  for (auto* v : {&x, &y, &z}) v->resize(n);
  id.resize(n);
  type.resize(n);
  for (auto* v : {&vx, &vy, &vz, &fx, &fy, &fz, &pe, &virial}) v->resize(n);
  for (auto* v : {&ix, &iy, &iz}) v->resize(n);
}

void AtomStore::resize_ghosts(std::size_t n) {
  nghost = n;
  const std::size_t all = nlocal + n;
  for (auto* v : {&x, &y, &z}) v->resize(all);
  id.resize(all);
  type.resize(all);
}

std::vector<std::size_t> AtomStore::local_order_by_id() const {
  std::vector<std::size_t> order(nlocal);
  for (std::size_t i = 0; i < nlocal; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return id[p] < id[q]; });
  return order;
}

void AtomStore::permute_local(const std::vector<std::size_t>& order) {
  std::vector<double> d;
  std::vector<int> i;
  std::vector<AtomId> g;
  for (auto* v : {&x, &y, &z}) v->resize(nlocal);
  id.resize(nlocal);
  type.resize(nlocal);
  nghost = 0;
  apply_order(id, order, g);
  apply_order(type, order, i);
  for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &pe, &virial}) apply_order(*v, order, d);
  for (auto* v : {&ix, &iy, &iz}) apply_order(*v, order, i);
}

}  // namespace tessera
