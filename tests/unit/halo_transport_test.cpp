#include "comm/halo_transport.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>

#include "comm/halo_transport_setup.hpp"

using namespace tessera;

namespace {
MpiCudaSupport said(MpiCudaSupport::State s) {
  MpiCudaSupport m;
  m.state = s;
  m.how = "asked";
  return m;
}
}  // namespace

TEST_CASE("auto hands device buffers to MPI only when the library says it takes them", "[comm][transport]") {
  using State = MpiCudaSupport::State;
  const TransportChoice yes = choose_halo_transport("auto", said(State::kYes));
  CHECK(yes.transport == HaloTransport::kCudaAware);
  CHECK(yes.why == "cuda_aware_mpi: auto, and the library is CUDA-aware (asked)");
  const TransportChoice no = choose_halo_transport("auto", said(State::kNo));
  CHECK(no.transport == HaloTransport::kHostStaged);
  CHECK(no.why == "cuda_aware_mpi: auto, and the library is not CUDA-aware (asked)");
  // A library that cannot say is not trusted with device pointers: handing
  // them to one that cannot take them crashes, which no self-test catches.
  const TransportChoice unknown = choose_halo_transport("auto", said(State::kUnknown));
  CHECK(unknown.transport == HaloTransport::kHostStaged);
  CHECK(unknown.why == "cuda_aware_mpi: auto, and the library cannot say (asked)");
}

TEST_CASE("on and off are the user's word, whatever the library says", "[comm][transport]") {
  using State = MpiCudaSupport::State;
  for (State s : {State::kYes, State::kNo, State::kUnknown}) {
    CHECK(choose_halo_transport("on", said(s)).transport == HaloTransport::kCudaAware);
    CHECK(choose_halo_transport("off", said(s)).transport == HaloTransport::kHostStaged);
    CHECK(choose_halo_transport("off", said(s)).why == "cuda_aware_mpi: off");
  }
  CHECK(choose_halo_transport("on", said(State::kNo)).why ==
        "cuda_aware_mpi: on (forced although the library says it is not CUDA-aware: asked)");
  CHECK(choose_halo_transport("on", said(State::kYes)).why == "cuda_aware_mpi: on (the library agrees: asked)");
  CHECK_THROWS_AS(choose_halo_transport("maybe", said(State::kYes)), std::invalid_argument);
  CHECK(std::string(to_string(HaloTransport::kHostStaged)) == "host-staged");
  CHECK(std::string(to_string(HaloTransport::kCudaAware)) == "CUDA-aware MPI");
}

TEST_CASE("Without MPI running, the library's CUDA support is its build's answer", "[comm][transport]") {
  // The unit tests never initialise MPI. Debian's Open MPI is built without
  // CUDA and its <mpi-ext.h> says so.
  const MpiCudaSupport s = mpi_cuda_support();
  CHECK(s.state != MpiCudaSupport::State::kYes);
  CHECK(!s.how.empty());
}

TEST_CASE("A swap can be peer-copied only when both its partners run on this rank's node", "[comm][transport]") {
  // Ranks 0 and 1 on one node, 2 and 3 on another.
  const std::vector<int> node = {0, 0, 2, 2};
  std::vector<HaloExchange::Swap> swaps(4);
  swaps[0].self = true;  // an axis with one rank: a copy in place, never peer
  swaps[0].to = swaps[0].from = 0;
  swaps[1].to = swaps[1].from = 1;  // both partners on rank 0's node
  swaps[2].to = 1;                  // sends on the node, receives from the other
  swaps[2].from = 2;
  swaps[3].to = swaps[3].from = 3;  // both on the other node
  CHECK(peer_swaps_here(swaps, node, 0) == std::vector<bool>{false, true, false, false});
  // Rank 3 sees the same swaps from the other node.
  CHECK(peer_swaps_here(swaps, node, 3) == std::vector<bool>{false, false, false, true});
  CHECK_THROWS_AS(peer_swaps_here(swaps, {0, 0}, 0), std::out_of_range);  // a rank beyond the node list
}

namespace {

// A device with one local atom and one ghost whose halo refresh brings the
// ghost back as built, except through `broken` (zeroed, or a throw).
class FakeHaloDevice final : public HaloDevice {
 public:
  explicit FakeHaloDevice(HaloTransport broken, bool throws = false) : broken_(broken), throws_(throws) {
    atoms.resize_local(1);
    atoms.resize_ghosts(1);
    atoms.x[1] = 1.5;
    atoms.y[1] = 2.5;
    atoms.z[1] = 3.5;
  }
  void set_halo_transport(HaloTransport t) override { transport = t; }
  std::string peer_copy_kind() const override { return ""; }
  void set_peer_swaps(const std::vector<bool>& peer) override { peer_swaps = peer; }
  void refresh_halo(const SwapExchange&) override {
    if (transport != broken_) return;
    if (throws_) throw std::runtime_error("the library took the pointer for something else");
    atoms.x[1] = 0;
  }
  void download(AtomStore& a) const override { a = atoms; }
  void upload(const AtomStore& a) override {
    atoms = a;
    ++uploads;
  }
  void build_list() override { ++builds; }

  AtomStore atoms;
  HaloTransport transport = HaloTransport::kHostStaged;
  std::vector<bool> peer_swaps{true};
  int uploads = 0, builds = 0;

 private:
  HaloTransport broken_;
  bool throws_;
};

}  // namespace

TEST_CASE("CUDA-aware MPI that fails the self-test falls back to host-staged", "[comm][transport]") {
  for (bool throws : {false, true}) {
    FakeHaloDevice device(HaloTransport::kCudaAware, throws);
    HaloTransportSetup setup;
    setup.choose("on", said(MpiCudaSupport::State::kNo), device);
    CHECK(device.transport == HaloTransport::kCudaAware);
    CHECK_FALSE(setup.tested());
    const HaloExchange halo;  // one rank: no swaps between ranks
    setup.self_test("auto", device, halo, Communicator::world(), 7);
    CHECK(setup.tested());
    CHECK(device.peer_swaps.empty());  // no swap to peer-copy
    CHECK(device.transport == HaloTransport::kHostStaged);
    CHECK(setup.transport().transport == HaloTransport::kHostStaged);
    const std::string what = throws ? "rank 0: the library took the pointer for something else"
                                    : "1 of 1 ghost positions on rank 0 differ";
    CHECK(setup.transport().why == "CUDA-aware MPI failed the start-up self-test: " + what);
    CHECK(setup.report() == "CUDA-aware MPI failed its self-test (" + what +
                                "), fell back; host-staged self-test passed: 1 ghost positions (0 swaps per rank, "
                                "0 of them between ranks) came back bit for bit");
    // The ghosts as built went back before the second try.
    CHECK(device.uploads == 1);
    CHECK(device.builds == 1);
    CHECK(device.atoms.x[1] == 1.5);
    CHECK(setup.describe(halo.swaps()) == "host-staged");
  }
}

TEST_CASE("A host-staged halo that fails the self-test stops the run", "[comm][transport]") {
  FakeHaloDevice device(HaloTransport::kHostStaged);
  HaloTransportSetup setup;
  setup.choose("off", said(MpiCudaSupport::State::kYes), device);
  const HaloExchange halo;
  CHECK_THROWS_WITH(setup.self_test("off", device, halo, Communicator::world(), 7),
                    "halo self-test at step 7 failed with the host-staged transport: 1 of 1 ghost positions on rank 0 "
                    "differ");
  CHECK(device.uploads == 0);
}
