// A compact, lossless byte encoding of api::Pod, for caches that hold many pods.
//
// A decoded api::Pod is mostly fixed-size members that are empty in practice (a ContainerStatus
// alone is over 900 bytes before any string is stored), so a realistic pod costs 11–13 KB as an
// object but 1–2 KB packed. PodInformer keeps pods packed and unpacks the ones that are read.
//
// The encoding is private to this process (no versioning, no validation beyond asserts): only
// bytes produced by packPod may be given to unpackPod.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/pod.h"

namespace attune::kube {

// Every field of `pod`, packed. Pure.
std::string packPod(const api::Pod& pod);

// Rebuilds the pod packed in `bytes` into `out`, reusing its storage (strings and vectors keep
// their capacity, which makes unpacking many pods into one object cheap). Every field of `out`
// is overwritten. Asserts that `bytes` is well-formed.
void unpackPod(std::string_view bytes, api::Pod& out);

// unpackPod into a new object.
api::Pod unpackPod(std::string_view bytes);

// Hints for callers unpacking many pods whose packed bytes and reused objects lie scattered over
// the heap: each asks the CPU to start loading memory that a later unpackPod reads or overwrites,
// so that the cache misses of several pods overlap instead of coming one after another. None of
// them changes anything, and none is needed for a correct result.
// The packed bytes.
void prefetchPacked(std::string_view bytes);
// The object itself (not what its members point to).
void prefetchPodObject(const api::Pod& pod);
// What its members point to, one level down: the buffers of its vectors and of its strings that
// do not fit in the object. Reads the object, so best called once prefetchPodObject has had time.
void prefetchPodBuffers(const api::Pod& pod);

}  // namespace attune::kube
