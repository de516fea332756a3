#include "stats/wire.h"

#include <bit>
#include <cstring>

namespace attune::stats {
namespace {

template <typename T>
void putLe(std::vector<std::uint8_t>& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

template <typename T>
T getLe(const std::uint8_t* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(p[i]) << (8 * i);
  return v;
}

}  // namespace

void Writer::u16(std::uint16_t v) { putLe(out_, v); }
void Writer::u32(std::uint32_t v) { putLe(out_, v); }
void Writer::u64(std::uint64_t v) { putLe(out_, v); }
void Writer::f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
void Writer::f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }

void Writer::varint(std::uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<std::uint8_t>(v));
}

void Writer::blob(std::span<const std::uint8_t> bytes) {
  varint(bytes.size());
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

void Writer::str(std::string_view s) {
  blob({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

const std::uint8_t* Reader::take(std::size_t n) {
  if (!ok()) return nullptr;
  if (n > remaining()) {
    corrupt("truncated");
    return nullptr;
  }
  const std::uint8_t* p = in_.data() + pos_;
  pos_ += n;
  return p;
}

std::uint8_t Reader::u8() {
  const std::uint8_t* p = take(1);
  return p ? *p : 0;
}
std::uint16_t Reader::u16() {
  const std::uint8_t* p = take(2);
  return p ? getLe<std::uint16_t>(p) : 0;
}
std::uint32_t Reader::u32() {
  const std::uint8_t* p = take(4);
  return p ? getLe<std::uint32_t>(p) : 0;
}
std::uint64_t Reader::u64() {
  const std::uint8_t* p = take(8);
  return p ? getLe<std::uint64_t>(p) : 0;
}
float Reader::f32() { return std::bit_cast<float>(u32()); }
double Reader::f64() { return std::bit_cast<double>(u64()); }

std::uint64_t Reader::varint() {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const std::uint8_t* p = take(1);
    if (!p) return 0;
    v |= static_cast<std::uint64_t>(*p & 0x7f) << shift;
    if (!(*p & 0x80)) return v;
  }
  corrupt("has an overlong varint");
  return 0;
}

std::span<const std::uint8_t> Reader::blob() {
  const std::uint64_t n = varint();
  if (ok() && n > remaining()) corrupt("truncated");
  const std::uint8_t* p = take(ok() ? n : 0);
  return p ? std::span<const std::uint8_t>(p, n) : std::span<const std::uint8_t>();
}

std::string Reader::str() {
  auto b = blob();
  return std::string(b.begin(), b.end());
}

void Reader::corrupt(const char* why) {
  if (!ok()) return;
  why_ = why;
  failedAt_ = pos_;
}

Error Reader::error() const {
  return Error{ErrorCode::kInvalidArgument, std::string("checkpoint ") + (why_ ? why_ : "ok") +
                                                " at byte " + std::to_string(failedAt_)};
}

}  // namespace attune::stats
