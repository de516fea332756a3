#include "sim/serve/list_pager.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "api/k8s/base64.h"

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// base64url without padding, as the API server's tokens.
std::string encodeToken(const ContinueToken& t) {
  const Json j = {{"v", 1},          {"rv", t.resourceVersion}, {"snap", t.snapshot},
                  {"off", t.offset}, {"ns", t.lastNs},          {"name", t.lastName},
                  {"scope", t.scope}};
  std::string out = api::base64Encode(j.dump());
  while (!out.empty() && out.back() == '=') out.pop_back();
  std::ranges::replace(out, '+', '-');
  std::ranges::replace(out, '/', '_');
  return out;
}

}  // namespace

std::string ListPager::scopeOf(std::string_view resource, std::string_view ns,
                               std::string_view labelSelector, std::string_view fieldSelector) {
  std::string out;
  for (std::string_view part : {resource, ns, labelSelector, fieldSelector}) {
    out += part;
    out += '\n';
  }
  return out;
}

ListPage ListPager::page(std::string_view scope, std::uint64_t resourceVersion,
                         std::vector<KeyedItem> items, std::size_t limit) {
  if (limit == 0 || items.size() <= limit) {
    ListPage all;
    all.items.reserve(items.size());
    for (KeyedItem& item : items) all.items.push_back(std::move(item.json));
    return all;
  }
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->id = ++nextId_;
  snapshot->scope = fnv1a(scope);
  snapshot->resourceVersion = resourceVersion;
  snapshot->items = std::move(items);
  snapshots_.push_back(snapshot);
  while (snapshots_.size() > maxSnapshots_) snapshots_.pop_front();
  return cut(*snapshot, 0, limit);
}

Result<ContinueToken> ListPager::decode(std::string_view scope, std::string_view token) const {
  std::string text(token);
  std::ranges::replace(text, '-', '+');
  std::ranges::replace(text, '_', '/');
  while (text.size() % 4 != 0) text += '=';
  auto invalid = [] {
    return fail(ErrorCode::kInvalidArgument, "the continue token is not valid", "continue");
  };
  auto decoded = api::base64Decode(text);
  if (!decoded) return invalid();
  const Json j = Json::parse(*decoded, nullptr, false);
  if (!j.is_object()) return invalid();
  auto number = [&](const char* key) -> std::optional<std::uint64_t> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<std::uint64_t>();
  };
  auto string = [&](const char* key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  const auto rv = number("rv"), snap = number("snap"), off = number("off"), hash = number("scope");
  const auto ns = string("ns"), name = string("name");
  if (number("v") != 1U || !rv || !snap || !off || !hash || !ns || !name) return invalid();
  ContinueToken out{*rv, *snap, static_cast<std::size_t>(*off), *ns, *name, *hash};
  if (out.scope != fnv1a(scope)) {
    return fail(ErrorCode::kInvalidArgument,
                "the continue token was issued for another resource, namespace or selector",
                "continue");
  }
  return out;
}

std::optional<ListPage> ListPager::next(const ContinueToken& token, std::size_t limit) {
  auto it =
      std::ranges::find_if(snapshots_, [&](const auto& s) { return s->id == token.snapshot; });
  if (it == snapshots_.end() || (*it)->scope != token.scope ||
      (*it)->resourceVersion != token.resourceVersion || token.offset > (*it)->items.size()) {
    return std::nullopt;
  }
  const std::shared_ptr<Snapshot> snapshot = *it;
  ListPage page = cut(*snapshot, token.offset, limit);
  return page;
}

ListPage ListPager::cut(Snapshot& snapshot, std::size_t offset, std::size_t limit) {
  const std::size_t size = snapshot.items.size();
  const std::size_t end = limit == 0 ? size : std::min(size, offset + limit);
  ListPage page;
  page.items.reserve(end - offset);
  for (std::size_t i = offset; i < end; ++i) page.items.push_back(snapshot.items[i].json);
  if (end < size) {
    const KeyedItem& last = snapshot.items[end - 1];
    page.continueToken = encodeToken(ContinueToken{snapshot.resourceVersion, snapshot.id, end,
                                                   last.ns, last.name, snapshot.scope});
    page.remainingItemCount = static_cast<std::int64_t>(size - end);
  } else {
    const std::uint64_t id = snapshot.id;
    std::erase_if(snapshots_, [&](const auto& s) { return s->id == id; });
  }
  return page;
}

}  // namespace attune::sim::serve
