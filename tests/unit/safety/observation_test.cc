// The observation period: precedence, 1-minute minimum, and the extension that keeps the
// throttle check's rate window free of pre-resize data.
#include "safety/observation.h"

#include <gtest/gtest.h>

namespace attune::safety {
namespace {

using namespace std::chrono_literals;

// Without the throttle extension, to see precedence and the minimum on their own.
constexpr ObservationOptions kNoThrottleWindow{Duration::zero(), Duration::zero()};

TEST(ObservationPeriod, SafetyPeriodBeatsCanaryPeriodBeatsDefault) {
  api::AttunePolicySpec spec;
  EXPECT_EQ(observationPeriod(spec, kNoThrottleWindow), 5min);
  spec.updateStrategy.canary = api::CanaryConfig{};
  spec.updateStrategy.canary->observationPeriod = 30min;
  EXPECT_EQ(observationPeriod(spec, kNoThrottleWindow), 30min);
  spec.updateStrategy.safetyObservationPeriod = 10min;
  EXPECT_EQ(observationPeriod(spec, kNoThrottleWindow), 10min);
}

TEST(ObservationPeriod, HasAOneMinuteMinimum) {
  api::AttunePolicySpec spec;
  spec.updateStrategy.safetyObservationPeriod = 20s;
  EXPECT_EQ(observationPeriod(spec, kNoThrottleWindow), 1min);
}

TEST(ObservationPeriod, ExtendsSoTheThrottleWindowHoldsOnlyPostResizeData) {
  api::AttunePolicySpec spec;
  spec.updateStrategy.safetyObservationPeriod = 1min;
  EXPECT_EQ(observationPeriod(spec), 6min);  // 5m rate window + 1m sample interval
  EXPECT_EQ(observationPeriod(spec, {5min, 30s}), 5min + 30s);
  spec.updateStrategy.safetyObservationPeriod = 20min;
  EXPECT_EQ(observationPeriod(spec), 20min);  // already long enough
}

}  // namespace
}  // namespace attune::safety
