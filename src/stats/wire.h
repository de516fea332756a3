// Little-endian binary writer and a bounds-checked reader for checkpoints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace attune::stats {

// Appends fixed-width little-endian integers, floats and LEB128 varints to a byte vector.
class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v);
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void f32(float v);
  void f64(double v);
  void varint(std::uint64_t v);
  // A varint length followed by the bytes.
  void blob(std::span<const std::uint8_t> bytes);
  void str(std::string_view s);

  std::vector<std::uint8_t>& bytes() { return out_; }

 private:
  std::vector<std::uint8_t> out_;
};

// Reads what Writer wrote. Never reads past the end: the first failed read makes the reader
// "failed" (sticky), returns zero values from then on and records which read failed, so a
// decoder may read a whole structure and check ok() once, provided it bounds every size it
// allocates by remaining().
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}

  std::uint8_t u8();
  std::uint16_t u16();
  std::uint32_t u32();
  std::uint64_t u64();
  float f32();
  double f64();
  std::uint64_t varint();
  // A varint-length-prefixed byte range (empty on failure).
  std::span<const std::uint8_t> blob();
  std::string str();

  // Marks the input corrupt with `why` (keeps the first reason).
  void corrupt(const char* why);
  bool ok() const { return why_ == nullptr; }
  std::size_t remaining() const { return in_.size() - pos_; }
  std::size_t position() const { return pos_; }
  // The error for a failed reader: "checkpoint <why> at byte N".
  Error error() const;

 private:
  // Returns the next n bytes, or nullptr (and fails) if fewer remain.
  const std::uint8_t* take(std::size_t n);

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  const char* why_ = nullptr;
  std::size_t failedAt_ = 0;
};

}  // namespace attune::stats
