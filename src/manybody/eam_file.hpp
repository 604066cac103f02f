#pragma once
// The three DYNAMO tabulations of an embedded-atom potential, as read from
// their text files (the ones Debian's lammps-data installs under
// /usr/share/lammps/potentials):
//
//   funcfl (pair_style eam, one element): a comment line; "Z mass a lattice";
//     "nrho drho nr dr cutoff"; F(rho) at nrho points; Z(r) at nr points
//     (the pair term is 27.2 * 0.529 * Z_i Z_j / r, Hartree x Bohr in eV A);
//     rho(r) at nr points.
//   setfl (eam/alloy, several elements): three comment lines; "N el_1 ... el_N";
//     "nrho drho nr dr cutoff"; per element "Z mass a lattice", F(rho), rho(r);
//     then r phi(r) for each pair i >= j in the order (1,1) (2,1) (2,2) ...
//   Finnis-Sinclair (eam/fs): as setfl, but each element has N density
//     functions rho_ij(r), j = 1..N, after its F(rho).
//
// Numbers of a table may spread over any number of lines; every table
// starts on a new line, '#' starts a comment, blank lines are skipped.
// Anything wrong throws InputError naming the file and line.
#include <string>
#include <vector>

namespace tessera {

enum class EamFormat { kFuncfl, kSetfl, kFinnisSinclair };

struct EamFile {
  std::string path;
  EamFormat format = EamFormat::kSetfl;
  std::vector<std::string> elements;  // setfl and fs; funcfl: none
  std::vector<double> mass;           // per element (funcfl: one)
  int nrho = 0, nr = 0;
  double drho = 0, dr = 0, cut = 0;
  // frho[e]: F at rho = k drho, k = 0 .. nrho-1.
  std::vector<std::vector<double>> frho;
  // rho(r) at r = k dr. funcfl and setfl: one per element; fs: N per
  // element, rhor[i * N + j].
  std::vector<std::vector<double>> rhor;
  // setfl and fs: r phi(r) of element pair i >= j at rhor's points, index
  // i (i + 1) / 2 + j.
  std::vector<std::vector<double>> z2r;
  // funcfl: Z(r) at rhor's points.
  std::vector<double> zr;

  int element_index(const std::string& name) const;  // -1 if absent
};

EamFile read_eam_file(const std::string& path, EamFormat format);

}  // namespace tessera
