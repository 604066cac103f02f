#pragma once
// A store's checkpointed fields <-> the arrays of a CheckpointState, by
// walking the field registry: a field the registry marks kFieldCheckpointed
// is captured and restored with no line here, into its dedicated array or,
// for a quantity without one, into CheckpointState::quantities. The store
// and its walk are template parameters so that tests can map a store with a
// field the registry does not have (adding one to the registry would change
// every output).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "atoms/atom_fields.hpp"
#include "io/checkpoint.hpp"

namespace tessera {

// The registry's walk, for_each_field: the default for the functions below.
struct RegistryFields {
  template <class Store, class F>
  void operator()(Store& store, unsigned mask, F&& f) const {
    for_each_field(store, mask, std::forward<F>(f));
  }
};

// The checkpointed quantities of `store` (as `fields` walks it) that have no
// dedicated array, values empty.
template <class Store, class Fields = RegistryFields>
std::vector<CheckpointQuantity> further_quantities(const Store& store, Fields fields = {}) {
  std::vector<CheckpointQuantity> out;
  fields(store, kFieldCheckpointed, [&](const auto& v, const FieldInfo& f) {
    if (f.component != 0 || has_dedicated_array(f.name)) return;
    using T = typename std::decay_t<decltype(v)>::value_type;
    out.push_back(CheckpointQuantity{f.name, f.width, std::is_integral_v<T>, {}, {}});
  });
  return out;
}

// f(the array of `s` that the layout gives registry quantity `name`); false
// when it has none of its own. The one list of the dedicated arrays
// (has_dedicated_array asks it too).
template <class State, class F>
bool with_dedicated_array(State& s, std::string_view name, F&& f) {
  if (name == "id")
    f(s.id);
  else if (name == "type")
    f(s.type);
  else if (name == "position")
    f(s.position);
  else if (name == "velocity")
    f(s.velocity);
  else if (name == "force")
    f(s.force);
  else if (name == "image")
    f(s.image);
  else
    return false;
  return true;
}

// f(the array of `s` that holds quantity `name`), interleaved by component
// (x y z of atom 0, ...). A quantity the state lacks is a programming error:
// capture_fields makes every one, and read_checkpoint refuses a file
// without one.
template <class State, class F>
void with_state_array(State& s, const char* name, F&& f) {
  if (with_dedicated_array(s, name, f)) return;
  for (auto& q : s.quantities)
    if (q.name == name) {
      if (q.integer)
        f(q.integers);
      else
        f(q.reals);
      return;
    }
  throw std::logic_error(std::string("checkpoint: no array for the per-atom quantity ") + name);
}

// Every checkpointed field of `store` into the checkpoint's arrays, atom k of
// the checkpoint being slot(k) of the store, k < n.
template <class Store, class Slot, class Fields = RegistryFields>
void capture_fields(const Store& store, std::size_t n, const Slot& slot, CheckpointState& s, Fields fields = {}) {
  s.quantities = further_quantities(store, fields);
  fields(store, kFieldCheckpointed, [&](const auto& v, const FieldInfo& f) {
    with_state_array(s, f.name, [&](auto& sv) {
      using T = typename std::decay_t<decltype(sv)>::value_type;
      const std::size_t w = static_cast<std::size_t>(f.width);
      if (f.component == 0) sv.resize(w * n);
      for (std::size_t k = 0; k < n; ++k) sv[w * k + f.component] = static_cast<T>(v[slot(k)]);
    });
  });
}

// The checkpointed fields of checkpoint atom k into slot(k) of `store`,
// k < n: those that are state (derived == false), or the derived ones
// (forces), which come back after the first force computation of a restart.
// Positions come from `position` (the current ones, or those of the last
// build).
template <class Store, class Slot, class Fields = RegistryFields>
void restore_fields(const CheckpointState& s, const std::vector<double>& position, std::size_t n, const Slot& slot,
                    bool derived, Store& store, Fields fields = {}) {
  fields(store, kFieldCheckpointed, [&](auto& v, const FieldInfo& f) {
    if (f.has(kFieldDerived) != derived) return;
    const auto copy = [&](const auto& sv) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      const std::size_t w = static_cast<std::size_t>(f.width);
      for (std::size_t k = 0; k < n; ++k) v[slot(k)] = static_cast<T>(sv[w * k + f.component]);
    };
    if (std::string_view(f.name) == "position")
      copy(position);
    else
      with_state_array(s, f.name, copy);
  });
}

}  // namespace tessera
