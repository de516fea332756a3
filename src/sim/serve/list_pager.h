// ListPager: server-side paging of LIST responses (`limit` and `continue`). The first page of a
// list that does not fit is cut from the whole list, and the rest is kept as a snapshot, so the
// following pages are consistent with the first one (as the API server's pages are, read from
// etcd at the first page's revision). The continue token is opaque to clients; it carries the
// list's resourceVersion, the snapshot's id, the offset and the key of the last item sent, and a
// hash of the request's scope (resource, namespace, selectors). Up to `maxSnapshots` snapshots
// are kept, the oldest dropped first; a snapshot is dropped once its last page is sent. A token
// whose snapshot is gone can still be resumed from the current objects after its last key when
// the resource has not changed since the token's resourceVersion (the caller checks that with
// the WatchLog); otherwise the caller answers 410 Expired. Not thread-safe: SimHost's lock
// guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace attune::sim::serve {

// One list item with its key; lists are paged in (namespace, name) order.
struct KeyedItem {
  std::string ns;
  std::string name;
  std::string json;
};

struct ListPage {
  std::vector<std::string> items;
  std::string continueToken;            // "" on the last page
  std::int64_t remainingItemCount = 0;  // items after this page
};

// What a continue token says.
struct ContinueToken {
  std::uint64_t resourceVersion = 0;  // the list's
  std::uint64_t snapshot = 0;
  std::size_t offset = 0;  // of the next item in the snapshot
  std::string lastNs;      // the key of the last item sent
  std::string lastName;
  std::uint64_t scope = 0;
};

class ListPager {
 public:
  explicit ListPager(std::size_t maxSnapshots = 16) : maxSnapshots_(maxSnapshots) {}

  // The first `limit` of `items` (in (namespace, name) order) as a page of the list at
  // `resourceVersion`; when more remain they are kept as a snapshot and the page carries a
  // token for the rest. `limit` 0: everything, no token. `scope` identifies the request (see
  // scopeOf).
  ListPage page(std::string_view scope, std::uint64_t resourceVersion, std::vector<KeyedItem> items,
                std::size_t limit);
  // Decodes a token; kInvalidArgument (field "continue") when it is malformed or was made for
  // another scope.
  Result<ContinueToken> decode(std::string_view scope, std::string_view token) const;
  // The next `limit` items (0: all) of the token's snapshot; nullopt when it has been dropped.
  std::optional<ListPage> next(const ContinueToken& token, std::size_t limit);

  std::size_t snapshots() const { return snapshots_.size(); }

  // The scope of a list request: what a continue token must be used with.
  static std::string scopeOf(std::string_view resource, std::string_view ns,
                             std::string_view labelSelector, std::string_view fieldSelector);

 private:
  struct Snapshot {
    std::uint64_t id = 0;
    std::uint64_t scope = 0;
    std::uint64_t resourceVersion = 0;
    std::vector<KeyedItem> items;
  };
  ListPage cut(Snapshot& snapshot, std::size_t offset, std::size_t limit);

  std::size_t maxSnapshots_;
  std::uint64_t nextId_ = 0;
  std::deque<std::shared_ptr<Snapshot>> snapshots_;  // oldest first
};

}  // namespace attune::sim::serve
