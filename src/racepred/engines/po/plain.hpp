// The plain versions of the engines whose optimised version differs (readable, every clock a
// VectorClock): not registered; tests check them against the definitions like the engines.
#pragma once

#include <memory>

#include "racepred/clock/snapshot_options.hpp"
#include "racepred/engines/engine.hpp"

namespace racepred::po {

std::unique_ptr<Engine> make_shb_plain(EngineContext& context);
std::unique_ptr<Engine> make_wcp_plain(EngineContext& context);
std::unique_ptr<Engine> make_dc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdc_plain(EngineContext& context);
std::unique_ptr<Engine> make_wdp_plain(EngineContext& context);

// The engines on SnapshotPool with their snapshots stored as `snapshots` says (tests force
// delta snapshots on small traces); the engine table's factories use the defaults.
std::unique_ptr<Engine> make_shb(EngineContext& context, const SnapshotOptions& snapshots);
std::unique_ptr<Engine> make_wcp(EngineContext& context, const SnapshotOptions& snapshots);
std::unique_ptr<Engine> make_dc(EngineContext& context, const SnapshotOptions& snapshots);
std::unique_ptr<Engine> make_wdc(EngineContext& context, const SnapshotOptions& snapshots);
std::unique_ptr<Engine> make_dc_tp(EngineContext& context, const SnapshotOptions& snapshots);
std::unique_ptr<Engine> make_wdp(EngineContext& context, const SnapshotOptions& snapshots);

}  // namespace racepred::po
