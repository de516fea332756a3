#include "kube/compact_pod.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace attune::kube {
namespace {

// One function per type (`io`) describes its fields for both directions, so that packing and
// unpacking cannot drift apart. A field added to one of these api types must be added here too:
// the size checks below fail the build until it is.
static_assert(sizeof(api::Pod) == 1280, "api::Pod changed: update compact_pod.cc");
static_assert(sizeof(api::ObjectMeta) == 320, "api::ObjectMeta changed: update compact_pod.cc");
static_assert(sizeof(api::OwnerReference) == 136, "api::OwnerReference changed");
static_assert(sizeof(api::PodSpec) == 704, "api::PodSpec changed: update compact_pod.cc");
static_assert(sizeof(api::Container) == 416, "api::Container changed: update compact_pod.cc");
static_assert(sizeof(api::ContainerResizePolicy) == 64, "api::ContainerResizePolicy changed");
static_assert(sizeof(api::Toleration) == 144, "api::Toleration changed: update compact_pod.cc");
static_assert(sizeof(api::ResourceList) == 144, "api::ResourceList changed");
static_assert(sizeof(api::PodStatus) == 256, "api::PodStatus changed: update compact_pod.cc");
static_assert(sizeof(api::Condition) == 152, "api::Condition changed: update compact_pod.cc");
static_assert(sizeof(api::ContainerStatus) == 912, "api::ContainerStatus changed");
static_assert(sizeof(api::ContainerState) == 208, "api::ContainerState changed");
static_assert(sizeof(api::ContainerStateTerminated) == 104,
              "api::ContainerStateTerminated changed");

// Varints (LEB128) for counts and zig-zag integers; strings as length + bytes.
class Packer {
 public:
  static constexpr bool kReading = false;

  void count(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void integer(std::int64_t v) {
    count((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
  }
  void boolean(bool v) { out.push_back(v ? '\1' : '\0'); }
  void str(const std::string& s) {
    count(s.size());
    out.append(s);
  }
  void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }

  std::string out;
};

class Unpacker {
 public:
  static constexpr bool kReading = true;

  explicit Unpacker(std::string_view in) : in_(in) {}

  void count(std::uint64_t& v) {
    v = 0;
    for (int shift = 0;; shift += 7) {
      assert(pos_ < in_.size() && shift < 64);
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return;
    }
  }
  void integer(std::int64_t& v) {
    std::uint64_t z = 0;
    count(z);
    v = static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  void boolean(bool& v) {
    assert(pos_ < in_.size());
    v = in_[pos_++] != '\0';
  }
  void str(std::string& s) {
    std::uint64_t n = 0;
    count(n);
    assert(n <= in_.size() - pos_);
    s.assign(in_.substr(pos_, n));
    pos_ += n;
  }
  // Reads the next string when it equals `s` (true); otherwise reads nothing (false).
  bool strEquals(std::string_view s) {
    const std::size_t start = pos_;
    std::uint64_t n = 0;
    count(n);
    if (n == s.size() && in_.compare(pos_, n, s) == 0) {
      pos_ += n;
      return true;
    }
    pos_ = start;
    return false;
  }
  void raw(void* p, std::size_t n) {
    assert(n <= in_.size() - pos_);
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
};

template <typename A>
void io(A& a, std::string& v) {
  a.str(v);
}
template <typename A>
void io(A& a, bool& v) {
  a.boolean(v);
}
template <typename A>
void io(A& a, std::int64_t& v) {
  a.integer(v);
}
template <typename A>
void io(A& a, std::int32_t& v) {
  std::int64_t wide = v;
  a.integer(wide);
  if constexpr (A::kReading) v = static_cast<std::int32_t>(wide);
}

// Whole seconds and the nanoseconds past them: API timestamps are mostly whole seconds.
template <typename A>
void io(A& a, Time& v) {
  const std::int64_t ns = v.time_since_epoch().count();
  std::int64_t seconds = ns / 1'000'000'000;
  std::int64_t rest = ns % 1'000'000'000;
  a.integer(seconds);
  a.integer(rest);
  if constexpr (A::kReading) v = Time(Duration(seconds * 1'000'000'000 + rest));
}

// The format byte, with 0x80 set when the value needs all 128 bits.
template <typename A>
void io(A& a, Quantity& v) {
  if constexpr (A::kReading) {
    std::uint64_t tag = 0;
    a.count(tag);
    __int128 nanos = 0;
    if ((tag & 0x80) != 0) {
      a.raw(&nanos, sizeof nanos);
    } else {
      std::int64_t narrow = 0;
      a.integer(narrow);
      nanos = narrow;
    }
    v = Quantity::fromNanos(nanos, static_cast<QuantityFormat>(tag & 0x7f));
  } else {
    const __int128 nanos = v.nanos();
    const bool wide = nanos > INT64_MAX || nanos < INT64_MIN;
    a.count(static_cast<std::uint64_t>(v.format()) | (wide ? 0x80 : 0));
    if (wide) {
      a.raw(&nanos, sizeof nanos);
    } else {
      a.integer(static_cast<std::int64_t>(nanos));
    }
  }
}

template <typename A, typename T>
void io(A& a, std::optional<T>& v) {
  bool present = v.has_value();
  a.boolean(present);
  if constexpr (A::kReading) {
    if (!present) {
      v.reset();
      return;
    }
    if (!v) v.emplace();
  }
  if (present) io(a, *v);
}

template <typename A, typename T>
void io(A& a, std::vector<T>& v) {
  std::uint64_t n = v.size();
  if constexpr (A::kReading) {
    a.count(n);
    v.resize(n);
  } else {
    a.count(n);
  }
  for (T& element : v) io(a, element);
}

template <typename A, typename V>
void io(A& a, std::map<std::string, V, std::less<>>& m) {
  if constexpr (A::kReading) {
    std::uint64_t n = 0;
    a.count(n);
    // Entries whose key is the one the reused map has at that place keep their node: only the
    // value is read into it (a pod object reused for a pod of the same kind, same label and
    // annotation keys, touches no tree).
    std::uint64_t i = 0;
    auto same = m.begin();
    for (; i < n && same != m.end() && a.strEquals(same->first); ++i, ++same) {
      io(a, same->second);
    }
    // The remaining nodes are filled again rather than freed and allocated: unpacking into a
    // reused pod then allocates only for entries longer or more numerous than before. Packed
    // keys are in order, so the rest go after the entries kept.
    std::map<std::string, V, std::less<>> old;
    while (same != m.end()) old.insert(m.extract(same++));
    for (; i < n; ++i) {
      if (old.empty()) {
        std::string key;
        V value{};
        a.str(key);
        io(a, value);
        m.emplace_hint(m.end(), std::move(key), std::move(value));
      } else {
        auto node = old.extract(old.begin());
        a.str(node.key());
        io(a, node.mapped());
        m.insert(m.end(), std::move(node));
      }
    }
  } else {
    a.count(m.size());
    for (auto& [key, value] : m) {
      a.str(key);
      io(a, value);
    }
  }
}

template <typename A>
void io(A& a, api::OwnerReference& v) {
  io(a, v.apiVersion);
  io(a, v.kind);
  io(a, v.name);
  io(a, v.uid);
  io(a, v.controller);
}

template <typename A>
void io(A& a, api::ObjectMeta& v) {
  io(a, v.name);
  io(a, v.generateName);
  io(a, v.namespace_);
  io(a, v.uid);
  io(a, v.resourceVersion);
  io(a, v.generation);
  io(a, v.labels);
  io(a, v.annotations);
  io(a, v.ownerReferences);
  io(a, v.creationTimestamp);
  io(a, v.deletionTimestamp);
}

template <typename A>
void io(A& a, api::ResourceList& v) {
  io(a, v.cpu);
  io(a, v.memory);
  io(a, v.other);
}

template <typename A>
void io(A& a, api::ResourceRequirements& v) {
  io(a, v.requests);
  io(a, v.limits);
}

template <typename A>
void io(A& a, api::ContainerResizePolicy& v) {
  io(a, v.resourceName);
  io(a, v.restartPolicy);
}

template <typename A>
void io(A& a, api::Container& v) {
  io(a, v.name);
  io(a, v.image);
  io(a, v.resources);
  io(a, v.resizePolicy);
  io(a, v.restartPolicy);
}

template <typename A>
void io(A& a, api::Toleration& v) {
  io(a, v.key);
  io(a, v.operator_);
  io(a, v.value);
  io(a, v.effect);
  io(a, v.tolerationSeconds);
}

template <typename A>
void io(A& a, api::PodSpec& v) {
  io(a, v.containers);
  io(a, v.initContainers);
  io(a, v.nodeName);
  io(a, v.priority);
  io(a, v.priorityClassName);
  io(a, v.schedulerName);
  io(a, v.restartPolicy);
  io(a, v.nodeSelector);
  io(a, v.tolerations);
  io(a, v.overhead);
  io(a, v.resources);
}

template <typename A>
void io(A& a, api::Condition& v) {
  io(a, v.type);
  io(a, v.status);
  io(a, v.reason);
  io(a, v.message);
  io(a, v.lastTransitionTime);
  io(a, v.observedGeneration);
}

template <typename A>
void io(A& a, api::ContainerStateWaiting& v) {
  io(a, v.reason);
  io(a, v.message);
}

template <typename A>
void io(A& a, api::ContainerStateRunning& v) {
  io(a, v.startedAt);
}

template <typename A>
void io(A& a, api::ContainerStateTerminated& v) {
  io(a, v.exitCode);
  io(a, v.reason);
  io(a, v.message);
  io(a, v.startedAt);
  io(a, v.finishedAt);
}

template <typename A>
void io(A& a, api::ContainerState& v) {
  io(a, v.waiting);
  io(a, v.running);
  io(a, v.terminated);
}

template <typename A>
void io(A& a, api::ContainerStatus& v) {
  io(a, v.name);
  io(a, v.ready);
  io(a, v.started);
  io(a, v.restartCount);
  io(a, v.state);
  io(a, v.lastState);
  io(a, v.resources);
  io(a, v.allocatedResources);
}

template <typename A>
void io(A& a, api::PodStatus& v) {
  io(a, v.phase);
  io(a, v.qosClass);
  io(a, v.reason);
  io(a, v.message);
  io(a, v.conditions);
  io(a, v.observedGeneration);
  io(a, v.startTime);
  io(a, v.containerStatuses);
  io(a, v.initContainerStatuses);
  io(a, v.resize);
}

template <typename A>
void io(A& a, api::Pod& v) {
  io(a, v.metadata);
  io(a, v.spec);
  io(a, v.status);
}

}  // namespace

std::string packPod(const api::Pod& pod) {
  Packer packer;
  packer.out.reserve(2048);
  // The Packer only reads: every io() overload writes to its object when A::kReading alone.
  io(packer, const_cast<api::Pod&>(pod));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  packer.out.shrink_to_fit();
  return std::move(packer.out);
}

void unpackPod(std::string_view bytes, api::Pod& out) {
  Unpacker unpacker(bytes);
  io(unpacker, out);
  assert(unpacker.done());
}

api::Pod unpackPod(std::string_view bytes) {
  api::Pod pod;
  unpackPod(bytes, pod);
  return pod;
}

namespace {

constexpr std::size_t kCacheLine = 64;

void prefetchRange(const void* begin, std::size_t bytes) {
  const auto* p = static_cast<const char*>(begin);
  for (std::size_t offset = 0; offset < bytes; offset += kCacheLine) __builtin_prefetch(p + offset);
}

template <typename T>
void prefetchBuffer(const std::vector<T>& v) {
  prefetchRange(v.data(), v.size() * sizeof(T));
}

void prefetchBuffer(const std::string& s) { prefetchRange(s.data(), s.size()); }

}  // namespace

void prefetchPacked(std::string_view bytes) { prefetchRange(bytes.data(), bytes.size()); }

void prefetchPodObject(const api::Pod& pod) { prefetchRange(&pod, sizeof pod); }

void prefetchPodBuffers(const api::Pod& pod) {
  prefetchBuffer(pod.metadata.name);
  prefetchBuffer(pod.metadata.generateName);
  prefetchBuffer(pod.metadata.uid);
  prefetchBuffer(pod.metadata.ownerReferences);
  prefetchBuffer(pod.spec.containers);
  prefetchBuffer(pod.spec.initContainers);
  prefetchBuffer(pod.status.conditions);
  prefetchBuffer(pod.status.containerStatuses);
  prefetchBuffer(pod.status.initContainerStatuses);
}

}  // namespace attune::kube
