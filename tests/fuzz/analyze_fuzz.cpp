// libFuzzer target: `racepred analyze -e all` on small inputs (auto-detected format, strict and
// lenient): every input gives a report whose JSON parses and whose counts agree with its
// lists, or an InputError naming FILE:LINE:COL.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "fuzz/fuzz_support.hpp"
#include "racepred/driver/pipeline.hpp"
#include "racepred/report/writers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace racepred;
  if (size > 4096) return 0;  // small inputs: the online engines are what is fuzzed here
  static const std::vector<const EngineInfo*> engines = resolve_engines({"all"});
  const std::string_view text = fuzz::as_text(data, size);
  for (bool lenient : {false, true}) {
    PipelineOptions options;
    options.read.lenient = lenient;
    options.validation = lenient ? ValidationMode::Lenient : ValidationMode::Strict;
    options.max_races = 8;
    options.threaded = false;
    try {
      const PipelineResult result = run_pipeline_on_text(text, fuzz::kName, engines, options);
      std::ostringstream text_out, json_out;
      const Report report = result.report();
      write_text_report(text_out, report);
      write_json_report(json_out, report);
      const nlohmann::json j = nlohmann::json::parse(json_out.str());
      for (const nlohmann::json& r : j["results"]) {
        // Races are listed up to the cap and counted; deadlocks are all listed and counted.
        uint64_t races = 0, deadlocks = 0;
        for (const nlohmann::json& f : r["findings"])
          (f["kind"] == "deadlock" ? deadlocks : races) += 1;
        if (races > r["race_count"].get<uint64_t>()) std::abort();
        if (deadlocks != r["counts"]["deadlock"].get<uint64_t>()) std::abort();
        if (r["racy_events"].size() > r["racy_event_count"].get<uint64_t>()) std::abort();
        if ((r["race_count"].get<uint64_t>() == 0) != (r["racy_event_count"].get<uint64_t>() == 0))
          std::abort();
      }
    } catch (const InputError& e) {
      fuzz::check_input_error(e);
    }
  }
  return 0;
}
