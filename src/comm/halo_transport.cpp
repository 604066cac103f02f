#include "comm/halo_transport.hpp"

#include <stdexcept>

namespace tessera {

const char* to_string(HaloTransport t) {
  return t == HaloTransport::kCudaAware ? "CUDA-aware MPI" : "host-staged";
}

TransportChoice choose_halo_transport(const std::string& option, const MpiCudaSupport& support) {
  using State = MpiCudaSupport::State;
  if (option == "off") return {HaloTransport::kHostStaged, "cuda_aware_mpi: off"};
  if (option == "on") {
    const char* said = support.state == State::kYes  ? "the library agrees"
                       : support.state == State::kNo ? "forced although the library says it is not CUDA-aware"
                                                     : "the library cannot say";
    return {HaloTransport::kCudaAware, std::string("cuda_aware_mpi: on (") + said + ": " + support.how + ")"};
  }
  if (option != "auto") throw std::invalid_argument("cuda_aware_mpi: " + option);
  if (support.state == State::kYes)
    return {HaloTransport::kCudaAware, "cuda_aware_mpi: auto, and the library is CUDA-aware (" + support.how + ")"};
  return {HaloTransport::kHostStaged, std::string("cuda_aware_mpi: auto, and the library ") +
                                          (support.state == State::kNo ? "is not CUDA-aware" : "cannot say") + " (" +
                                          support.how + ")"};
}

std::vector<bool> peer_swaps_here(const std::vector<HaloExchange::Swap>& swaps, const std::vector<int>& node_of_rank,
                                  int rank) {
  std::vector<bool> out(swaps.size(), false);
  const auto node = [&](int r) { return node_of_rank.at(static_cast<std::size_t>(r)); };
  for (std::size_t k = 0; k < swaps.size(); ++k)
    out[k] = !swaps[k].self && node(swaps[k].to) == node(rank) && node(swaps[k].from) == node(rank);
  return out;
}

}  // namespace tessera
