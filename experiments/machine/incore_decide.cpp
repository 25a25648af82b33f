// Deciding the in-core bound from what was measured and read (incore.hpp): CPU pi's, CPU matmul's
// and GPU pi's blocks, made of given numbers alone, so that tests hold the decisions
// (tests/test_incore.cpp). incore.cpp gathers the numbers; incore_loop.cpp reads the loops.
#include "experiments/machine/incore.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "experiments/io/numbers.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

json mca_json(const McaReport& r) {
  const auto [name, pressure] = r.busiest();
  return {{"cycles_per_iteration", r.cycles_per_iteration()},
          {"block_rthroughput", r.block_rthroughput},
          {"busiest_resource", name},
          {"busiest_pressure", pressure}};
}

}  // namespace

json decide_incore(const IncoreInputs& in) {
  json j;
  if (!(in.clock_hz > 0) || !(in.probe_cycles_measured > 0) || !(in.probe_vector_instructions > 0) ||
      !(in.loop_vector_instructions > 0) || !(in.samples_per_iteration > 0)) {
    j["unavailable"] = "the clock, the probe or the loop's counts are missing";
    return j;
  }
  // The measured ports: the vector instructions per cycle the probe reached with pi's round mix.
  const double ipc = in.probe_vector_instructions / in.probe_cycles_measured;
  const double ports_cycles = in.loop_vector_instructions / ipc;
  j["ports"] = {{"instructions_per_cycle", ipc}, {"cycles_per_iteration", ports_cycles}};
  double cycles = ports_cycles;
  std::string model = "measured ports", why, binds;
  binds = "vector ports: " + fixed(in.loop_vector_instructions, 0) + " vector ALU instructions per trip" +
          (in.loop_moves > 0 ? " (and " + fixed(in.loop_moves, 0) + " moves, loads and stores left out)" : "") +
          " at the " + fixed(ipc, 2) + " per cycle the probe reached";
  if (in.mca_loop && in.mca_probe) {
    const double predicted = in.mca_probe->cycles_per_iteration();
    const bool agrees = std::abs(predicted - in.probe_cycles_measured) <= kMcaAgreement * in.probe_cycles_measured;
    json m = mca_json(*in.mca_loop);
    m["tool"] = in.mca_name;
    m["probe_cycles_predicted"] = predicted;
    m["probe_cycles_measured"] = in.probe_cycles_measured;
    m["agrees"] = agrees;
    j["llvm_mca"] = m;
    const std::string check = in.mca_name + " predicts the mix probe at " + fixed(predicted, 1) +
                              " cycles per trip; measured " + fixed(in.probe_cycles_measured, 1);
    if (agrees) {
      model = "llvm-mca";
      why = check + ": its port model holds here";
      cycles = in.mca_loop->cycles_per_iteration();
      const auto [name, pressure] = in.mca_loop->busiest();
      if (pressure >= 0.9 * cycles) {
        binds = "ports: " + name + " busy " + fixed(pressure, 1) + " of " + fixed(cycles, 1) + " cycles per trip";
      } else {
        binds = "dependency chains: " + fixed(cycles, 1) + " cycles per trip, the busiest port (" + name + ") busy " +
                fixed(pressure, 1);
      }
    } else {
      why = check + ": its port model does not hold here, so the measured ports bound the loop";
    }
  } else {
    why = in.mca_why_not.empty() ? "llvm-mca did not run" : in.mca_why_not;
    why += "; the measured ports alone bound the loop";
  }
  j["cycles_per_iteration"] = cycles;
  j["model"] = model;
  j["model_why"] = why;
  j["binds"] = binds;
  // Cycles per trip are a property of the core; the bound takes them at the fastest clock any core
  // was seen at, so that a record whose core ran faster than the probe's does not pass it.
  const double clock = std::max(in.clock_hz, in.peak_clock_hz);
  j["value"] = clock * in.samples_per_iteration / cycles;
  j["value_clock_hz"] = clock;
  j["unit"] = "samples/s";
  return j;
}

json decide_matmul_incore(const MatmulIncoreInputs& in) {
  json j;
  if (!(in.clock_hz > 0) || !(in.flops_per_trip > 0) || !(in.l1_flops_per_s > 0)) {
    j["unavailable"] = "the clock, the probe or the loop's counts are missing";
    return j;
  }
  // The hot loop's cycles per trip with every operand in L1 (a call's setup is one in 64 k-pairs'
  // worth, so the loop's own): what llvm-mca's model of the loop must predict.
  const double measured = in.clock_hz * in.flops_per_trip / in.l1_flops_per_s;
  std::string binds, why;
  if (in.mca_loop) {
    const double predicted = in.mca_loop->cycles_per_iteration();
    const bool agrees = std::abs(predicted - measured) <= kMcaAgreement * measured;
    json m = mca_json(*in.mca_loop);
    m["tool"] = in.mca_name;
    m["loop_cycles_predicted"] = predicted;
    m["loop_cycles_measured"] = measured;
    m["agrees"] = agrees;
    j["llvm_mca"] = m;
    const std::string check = in.mca_name + " predicts the loop at " + fixed(predicted, 2) + " cycles per trip; measured " +
                              fixed(measured, 2);
    if (agrees) {
      const auto [name, pressure] = in.mca_loop->busiest();
      binds = pressure >= 0.9 * predicted
                  ? "ports: " + name + " busy " + fixed(pressure, 2) + " of " + fixed(predicted, 2) + " cycles per trip"
                  : "dependency chains: " + fixed(predicted, 2) + " cycles per trip, the busiest port (" + name +
                        ") busy " + fixed(pressure, 2);
      why = check + ": its model holds here, and names what binds";
    } else {
      why = check + ": its model does not hold here, so it names nothing";
    }
  } else {
    why = in.mca_why_not.empty() ? "llvm-mca did not run" : in.mca_why_not;
  }
  if (binds.empty()) {
    binds = "the loop's instructions, measured: " + fixed(measured, 2) + " cycles per trip of " +
            fixed(in.flops_per_trip, 0) + " flops with every operand in L1 (no model names the resource)";
  }
  j["loop_cycles_per_iteration"] = measured;
  j["model"] = "measured";
  j["model_why"] = "the kernel's own tile update timed with every operand in L1 (the probe is the loop: no instruction "
                   "mix assumed); " + why;
  j["binds"] = binds;
  if (in.tile_flops_per_s > 0) {
    const double against = in.l1_probe_flops_per_s > 0 ? in.l1_probe_flops_per_s : in.l1_flops_per_s;
    j["tile"] = {{"share", in.tile_flops_per_s / against}, {"flops_per_s", in.tile_flops_per_s}};
  }
  // At the fastest clock any core was seen at, so that a record whose core ran faster than the
  // probe's does not pass the bound (as pi's).
  const double clock = std::max(in.clock_hz, in.peak_clock_hz);
  j["value"] = in.l1_flops_per_s * clock / in.clock_hz;
  j["value_clock_hz"] = clock;
  j["unit"] = "flops/s";
  return j;
}

json decide_gpu_incore(const SassLoop& loop, int pairs_per_trip, const std::optional<SassLoop>& probe,
                       const json& roofs) {
  json j;
  const auto number = [&](const char* roof, const char* input) -> double {
    if (!roofs.contains(roof)) return 0;
    const json& r = roofs[roof];
    if (input == nullptr) return r.value("value", 0.0);
    return r.contains("inputs") ? r["inputs"].value(input, 0.0) : 0.0;
  };
  const double sms = number("gpu_sm_count", nullptr), clock = number("gpu_clock_hz", nullptr);
  // gpu_imul_peak's per-SM rate is half the guide's 32-bit multiply-add rate (the assumption it names).
  const double imad_rate = 2 * number("gpu_imul_peak", "per_sm_per_clock");
  if (!(sms > 0) || !(clock > 0) || !(imad_rate > 0) || pairs_per_trip <= 0) {
    j["unavailable"] = "needs gpu_sm_count, gpu_clock_hz and gpu_imul_peak (a compute capability in kSmRates)";
    return j;
  }
  const double samples = 2.0 * pairs_per_trip;
  const double per_clock = sms * clock;
  // Each bound: samples per second were that resource alone the limit.
  struct Bound {
    const char* name;
    double slots_per_trip;
    double slots_per_sm_clock;
    std::string what;
  };
  const std::vector<Bound> bounds = {
      {"issue slots", static_cast<double>(loop.instructions), 128,
       "4 schedulers x 32 threads per SM and clock, " + std::to_string(loop.instructions) + " instructions per trip"},
      {"FMA pipe (IMAD)", 2.0 * loop.imad_wide + loop.imad_other, imad_rate,
       std::to_string(loop.imad_wide) + " IMAD.WIDE (2 slots each: ASSUMED, as gpu_imul_peak) + " +
           std::to_string(loop.imad_other) + " other IMAD per trip at the guide's " + fixed(imad_rate, 0) +
           " multiply-adds per SM and clock"},
      {"ALU pipe", static_cast<double>(loop.alu), imad_rate,
       std::to_string(loop.alu) + " LOP3, IADD3, ISETP, ... per trip at " + fixed(imad_rate, 0) +
           " per SM and clock (ASSUMED: the guide's 32-bit add and logic rate, equal to its multiply-add rate)"},
  };
  json each = json::object();
  const Bound* bind = nullptr;
  double best = 0;
  for (const auto& b : bounds) {
    if (!(b.slots_per_trip > 0)) continue;
    const double v = per_clock * b.slots_per_sm_clock * samples / b.slots_per_trip;
    each[b.name] = {{"value", v}, {"how", b.what}};
    if (bind == nullptr || v < best) {
      bind = &b;
      best = v;
    }
  }
  j["loop"] = {{"function", loop.function},
               {"instructions", loop.instructions},
               {"multiply_instructions", loop.imad_wide},
               {"imad_other", loop.imad_other},
               {"alu", loop.alu},
               {"lanes", 1},
               {"samples_per_iteration", samples},
               {"imuls_per_sample", loop.imad_wide / samples}};
  j["bounds"] = each;
  if (probe && probe->imad_wide > 0 && loop.imad_wide > 0) {
    const double pi_ipm = static_cast<double>(loop.instructions) / loop.imad_wide;
    const double probe_ipm = static_cast<double>(probe->instructions) / probe->imad_wide;
    j["imul_probe"] = {{"instructions", probe->instructions},
                       {"multiply_instructions", probe->imad_wide},
                       {"instructions_per_multiply", probe_ipm},
                       {"pi_instructions_per_multiply", pi_ipm}};
    j["imul_probe_bounds"] = probe_ipm <= pi_ipm;
  }
  j["value"] = best;
  j["unit"] = "samples/s";
  j["model"] = "theoretical";
  j["model_why"] = "SASS counts (cuobjdump) x the guide's per-SM rates x gpu_sm_count x gpu_clock_hz";
  j["binds"] = std::string(bind->name) + ": " + bind->what;
  j["cores"] = 1;  // the whole GPU
  return j;
}

}  // namespace parlab
