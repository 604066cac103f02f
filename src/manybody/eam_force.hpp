#pragma once
// The embedded-atom method as a force of two passes (eam_kernels.hpp): a
// density pass that leaves F'(rho) in the registered field
// "embedding_derivative", the forward of that field to the ghosts, and a
// force pass. Deck styles eam (funcfl files), eam/alloy (setfl) and eam/fs
// (Finnis-Sinclair), as LAMMPS's pair styles of those names.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cpu_simd.hpp"
#include "core/large_pages.hpp"
#include "manybody/eam_tables.hpp"
#include "manybody/manybody_styles.hpp"

namespace tessera {

class EamForce final : public Force {
 public:
  EamForce(std::string style, EamTables tables) : style_(std::move(style)), tables_(std::move(tables)) {}
  const char* name() const override { return style_.c_str(); }
  double max_cutoff() const override { return tables_.cut; }
  int passes() const override { return 2; }
  std::vector<std::string> forwarded_after(int pass) const override;
  void compute_pass(int pass, AtomStore& atoms, const NeighborList& list, const PassOptions& opt) const override;
  // compute_pass() with the lane kernel of `level`, or with the portable
  // functors of eam_kernels.hpp (the device's loop) when empty: for tests
  // that compare them.
  void compute_pass_with(int pass, AtomStore& atoms, const NeighborList& list, const PassOptions& opt,
                         std::optional<SimdLevel> level) const;
  const EamTables& tables() const { return tables_; }

 private:
  void functor_pass(int pass, AtomStore& atoms, const NeighborList& list, const PassOptions& opt) const;

  std::string style_;
  EamTables tables_;
  mutable std::vector<double> embed_;  // F(rho_i) of the locals, from pass 0 to pass 1
  mutable std::vector<double> rho_;    // rho_i of the locals, in pass 0 (lane kernel)
  mutable LargeVector<double> pos_;    // packed positions (lane kernel)
  // The neighbours inside the cutoff, from pass 0 to pass 1 (lane kernel;
  // EamKernelArgs::kept).
  mutable std::vector<int> kept_, kept_count_;
  mutable std::vector<int> rows_;  // the list's rows as atom indices, if it holds offsets (rows_with_shift)
};

// The deck's three EAM styles, for manybody_styles.cpp.
std::vector<ManyBodyStyleEntry> eam_styles();

}  // namespace tessera
