#include "run/timers.hpp"

namespace tessera {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kPair: return "Pair";
    case Phase::kNeighbor: return "Neighbor";
    case Phase::kIntegrate: return "Integrate";
    case Phase::kCommunicate: return "Communicate";
    case Phase::kWait: return "Wait";
    case Phase::kOutput: return "Output";
    case Phase::kOther: return "Other";
    case Phase::kCount: break;
  }
  return "?";
}

}  // namespace tessera
