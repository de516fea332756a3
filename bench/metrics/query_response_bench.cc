// Decoding the body of a usage read: a query_range matrix of 200 container series with a day of
// one-minute samples each (about 8 MiB, written as `attune sim serve` and Prometheus write them),
// the read the controller's first pass makes once per namespace and metric. It is decoded as it
// arrives (metrics::QueryResponseStream, fed in the 16 KiB pieces libcurl hands over), and, as
// the baseline measured in the same run, held whole and decoded at once (decodeQueryResponse,
// simdjson On Demand over the whole body). Prints MiB/s for both and the ratio.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/support/mean_time_reporter.h"
#include "metrics/prometheus/query_response.h"

namespace {

constexpr int kSeries = 200;
constexpr int kSamples = 1440;
constexpr std::size_t kPiece = 16 * 1024;  // CURL_MAX_WRITE_SIZE
constexpr const char* kStream = "BM_DecodeStreamed";
constexpr const char* kWhole = "BM_DecodeWhole";

const std::string& body() {
  static const std::string text = [] {
    std::string out = R"({"status":"success","data":{"resultType":"matrix","result":[)";
    unsigned state = 12345;
    for (int s = 0; s < kSeries; ++s) {
      if (s > 0) out += ',';
      out += R"({"metric":{"namespace":"team-0042","pod":"app-0042-7d9f8c6b5-)" +
             std::to_string(10000 + s) + R"(","container":"app"},"values":[)";
      for (int i = 0; i < kSamples; ++i) {
        state = state * 1103515245U + 12345U;
        if (i > 0) out += ',';
        out += '[' + std::to_string(1'790'000'000 + i * 60) + ".000,\"0." +
               std::to_string(100000 + (state >> 8) % 900000) + "\"]";
      }
      out += "]}";
    }
    out += "]}}";
    return out;
  }();
  return text;
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "query_response_bench: %s\n", why.c_str());
  std::abort();
}

void verify(const attune::Result<attune::metrics::QueryResponse>& response) {
  if (!response) die("decode failed: " + response.error().toString());
  if (response->series.size() != static_cast<std::size_t>(kSeries) ||
      response->series.back().points.size() != static_cast<std::size_t>(kSamples)) {
    die("decode produced " + std::to_string(response->series.size()) + " series");
  }
}

attune::Result<attune::metrics::QueryResponse> streamed(std::string_view text) {
  attune::metrics::QueryResponseStream stream;
  for (std::size_t at = 0; at < text.size(); at += kPiece) {
    if (!stream.feed(text.substr(at, std::min(kPiece, text.size() - at)))) break;
  }
  return stream.finish();
}

void BM_DecodeStreamed(benchmark::State& state) {
  const std::string& text = body();
  for (auto _ : state) {
    auto response = streamed(text);
    verify(response);
    benchmark::DoNotOptimize(response);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_DecodeWhole(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    std::string text = body();  // the decode pads the body it is given
    state.ResumeTiming();
    auto response = attune::metrics::decodeQueryResponse(text);
    verify(response);
    benchmark::DoNotOptimize(response);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body().size()));
}

BENCHMARK(BM_DecodeStreamed)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_DecodeWhole)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

void printSummary(const attune::bench::MeanTimeReporter& reporter) {
  const auto stream = reporter.meanSeconds(kStream);
  const auto whole = reporter.meanSeconds(kWhole);
  if (!stream || !whole) return;
  const double mb = static_cast<double>(body().size()) / (1024.0 * 1024.0);
  std::printf(
      "body: %d series x %d samples, %.1f MiB\n"
      "streamed: %.1f MiB/s   whole body: %.1f MiB/s\n"
      "streamed time vs whole body: %.2fx\n",
      kSeries, kSamples, mb, mb / *stream, mb / *whole, *stream / *whole);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  verify(streamed(body()));  // before any timing
  attune::bench::MeanTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(reporter);
  benchmark::Shutdown();
  return 0;
}
