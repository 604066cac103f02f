#include "manybody/eam_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace tessera {

namespace {

// The file as lines, read front to back, with errors that name file:line.
class PotentialText {
 public:
  explicit PotentialText(const std::string& path) : path_(path) {
    std::ifstream in(path);
    if (!in) throw InputError(fmt::format("{}: cannot open the potential file", path));
    for (std::string l; std::getline(in, l);) lines_.push_back(l);
  }

  [[noreturn]] void fail(std::size_t line, const std::string& message) const {
    throw InputError(fmt::format("{}:{}: {}", path_, line, message));
  }

  // Comment lines: skipped whatever they hold, but they must be there.
  void skip_line(const std::string& what) {
    if (next_ >= lines_.size()) fail(lines_.size(), fmt::format("the file ends before {}", what));
    ++next_;
  }

  // The words of the next line that has any ('#' starts a comment); `line`
  // is set to its number.
  std::vector<std::string> words(const std::string& what, std::size_t& line) {
    while (next_ < lines_.size()) {
      std::vector<std::string> w = split(lines_[next_++]);
      if (!w.empty()) {
        line = next_;
        return w;
      }
    }
    fail(lines_.size(), fmt::format("the file ends before {}", what));
  }

  double number(const std::string& word, std::size_t line, const std::string& what) const {
    const char* s = word.c_str();
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || *end != '\0') fail(line, fmt::format("'{}' is not a number ({})", word, what));
    if (!std::isfinite(v)) fail(line, fmt::format("{} is not a finite number ({})", word, what));
    return v;
  }

  long integer(const std::string& word, std::size_t line, const std::string& what) const {
    const char* s = word.c_str();
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
      fail(line, fmt::format("'{}' is not a whole number ({})", word, what));
    return v;
  }

  // `n` numbers starting on a new line, over as many lines as they take; the
  // last of those lines must hold no more than the table needs (else the
  // header's count disagrees with the table).
  std::vector<double> table(std::size_t n, const std::string& what) {
    std::vector<double> out;
    out.reserve(n);
    std::size_t first = 0;
    while (out.size() < n) {
      if (next_ >= lines_.size())
        fail(lines_.size(), fmt::format("the file ends after {} of the {} values of {}{}", out.size(), n, what,
                                        first ? fmt::format(" (from line {})", first) : ""));
      const std::size_t line = ++next_;
      const std::vector<std::string> w = split(lines_[line - 1]);
      if (w.empty()) continue;
      if (!first) first = line;
      if (out.size() + w.size() > n)
        fail(line, fmt::format("{} values where {} complete {} (from line {}): the header's counts do not match "
                               "the tables",
                               w.size(), n - out.size(), what, first));
      for (const std::string& s : w) out.push_back(number(s, line, what));
    }
    return out;
  }

  // Nothing but blanks and comments may follow the last table.
  void expect_end(const std::string& counts) {
    while (next_ < lines_.size()) {
      if (!split(lines_[next_++]).empty())
        fail(next_, fmt::format("values after the last table: the header's counts ({}) do not match the file", counts));
    }
  }

 private:
  static std::vector<std::string> split(const std::string& line) {
    std::istringstream in(line.substr(0, line.find('#')));
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    return w;
  }

  std::string path_;
  std::vector<std::string> lines_;
  std::size_t next_ = 0;
};

// "Z mass [a lattice]": the mass, in g/mol.
double read_mass(PotentialText& t, const std::string& what) {
  std::size_t line = 0;
  const auto w = t.words(what, line);
  if (w.size() < 2) t.fail(line, fmt::format("expected the atomic number and the mass ({})", what));
  t.integer(w[0], line, "atomic number of " + what);
  const double m = t.number(w[1], line, "mass of " + what);
  if (!(m > 0)) t.fail(line, fmt::format("the mass must be positive, got {} ({})", w[1], what));
  return m;
}

// "nrho drho nr dr cutoff", checked: the spline needs 5 points, and the
// r tables must reach the cutoff (a pair beyond them would read the last
// interval's end, not the potential).
void read_grid(PotentialText& t, EamFile& f) {
  std::size_t line = 0;
  const auto w = t.words("the grid line (nrho drho nr dr cutoff)", line);
  if (w.size() != 5) t.fail(line, fmt::format("expected 5 values (nrho drho nr dr cutoff), got {}", w.size()));
  const long nrho = t.integer(w[0], line, "nrho"), nr = t.integer(w[2], line, "nr");
  f.drho = t.number(w[1], line, "drho");
  f.dr = t.number(w[3], line, "dr");
  f.cut = t.number(w[4], line, "cutoff");
  if (nrho < 5 || nr < 5 || nrho > 10000000 || nr > 10000000)
    t.fail(line, fmt::format("nrho = {} and nr = {}: each table needs 5 to 10,000,000 points", nrho, nr));
  if (!(f.drho > 0) || !(f.dr > 0) || !(f.cut > 0))
    t.fail(line, fmt::format("drho, dr and the cutoff must be positive, got {} {} {}", w[1], w[3], w[4]));
  f.nrho = static_cast<int>(nrho);
  f.nr = static_cast<int>(nr);
  // The tables hold r = 0, dr, ..., (nr - 1) dr; files conventionally
  // stop one step short of the cutoff (nr dr = cutoff, the function being
  // zero there), which the spline's clamp to the last point covers. A table
  // shorter than that would give pairs near the cutoff a wrong value.
  if (f.nr * f.dr < f.cut * (1 - 1e-10))
    t.fail(line, fmt::format("the r tables end at (nr - 1) dr = {:.10g}, more than one step dr = {:.10g} short of "
                             "the cutoff {:.10g}",
                             (f.nr - 1) * f.dr, f.dr, f.cut));
}

void read_elements(PotentialText& t, EamFile& f) {
  std::size_t line = 0;
  const auto w = t.words("the element line (N and N names)", line);
  const long n = t.integer(w[0], line, "number of elements");
  if (n < 1 || n > 100) t.fail(line, fmt::format("expected 1 to 100 elements, got {}", w[0]));
  if (static_cast<long>(w.size()) != n + 1)
    t.fail(line, fmt::format("the line says {} elements but names {}", n, w.size() - 1));
  f.elements.assign(w.begin() + 1, w.end());
  for (std::size_t i = 0; i < f.elements.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (f.elements[i] == f.elements[j]) t.fail(line, fmt::format("element {} is named twice", f.elements[i]));
}

}  // namespace

int EamFile::element_index(const std::string& name) const {
  for (std::size_t i = 0; i < elements.size(); ++i)
    if (elements[i] == name) return static_cast<int>(i);
  return -1;
}

EamFile read_eam_file(const std::string& path, EamFormat format) {
  PotentialText t(path);
  EamFile f;
  f.path = path;
  f.format = format;
  if (format == EamFormat::kFuncfl) {
    t.skip_line("its comment line");
    f.mass.push_back(read_mass(t, "the element line"));
    read_grid(t, f);
    f.frho.push_back(t.table(f.nrho, "F(rho)"));
    f.zr = t.table(f.nr, "Z(r)");
    f.rhor.push_back(t.table(f.nr, "rho(r)"));
    t.expect_end(fmt::format("nrho {}, nr {}", f.nrho, f.nr));
    return f;
  }
  for (int k = 0; k < 3; ++k) t.skip_line("its three comment lines");
  read_elements(t, f);
  read_grid(t, f);
  const std::size_t n = f.elements.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& e = f.elements[i];
    f.mass.push_back(read_mass(t, "element " + e));
    f.frho.push_back(t.table(f.nrho, "F(rho) of " + e));
    if (format == EamFormat::kSetfl)
      f.rhor.push_back(t.table(f.nr, "rho(r) of " + e));
    else
      for (std::size_t j = 0; j < n; ++j)
        f.rhor.push_back(t.table(f.nr, fmt::format("rho(r) of {} for {}", e, f.elements[j])));
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j)
      f.z2r.push_back(t.table(f.nr, fmt::format("r phi(r) of {}-{}", f.elements[i], f.elements[j])));
  t.expect_end(fmt::format("{} elements, nrho {}, nr {}", n, f.nrho, f.nr));
  return f;
}

}  // namespace tessera
