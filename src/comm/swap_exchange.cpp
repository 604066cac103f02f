#include "comm/swap_exchange.hpp"

namespace tessera {

SwapExchange swap_exchange(const HaloExchange& halo, const Communicator& comm) {
  SwapExchange e;
  e.positions = [&halo](std::size_t k, const double* out, double* in) { halo.exchange_positions(k, out, in); };
  e.values = [&halo](std::size_t k, int width, const double* out, double* in) {
    halo.exchange_values(k, width, out, in);
  };
  e.bytes = [&comm](int to, const std::vector<char>& out, int from, std::vector<char>& in) {
    comm.sendrecv(to, out, from, in);
  };
  e.signal = [&comm](int to, double value, int from) {
    double got = 0;
    comm.sendrecv_doubles(to, &value, 1, from, &got, 1);
    return got;
  };
  return e;
}

}  // namespace tessera
