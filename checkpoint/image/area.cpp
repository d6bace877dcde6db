#include "checkpoint/image/area.hpp"

#include "checkpoint/image/format.hpp"
#include "checkpoint/image/zero_pages.hpp"

namespace yadokari::image {

bool AreaRecord::compressed() const { return flags & format::kFlagCompressed; }
bool AreaRecord::zero_pages_elided() const { return flags & format::kFlagZeroPagesElided; }
bool AreaRecord::delta() const { return flags & format::kFlagDelta; }
bool AreaRecord::in_dmtcp_part() const { return flags & format::kFlagInDmtcpPart; }
bool AreaRecord::shuffled() const { return flags & format::kFlagShuffled; }
std::uint64_t AreaRecord::pages() const { return page_count(length); }

}  // namespace yadokari::image
