// The MANIFEST's JSON form.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "checkpoint/storage/manifest.hpp"
#include "checkpoint/storage/storage_error.hpp"

using namespace yadokari::storage;

namespace {

Manifest sample() {
  return {7,
          "yk-1a2b",
          2,
          "mpich",
          "2025-01-02T03:04:05Z",
          {{0, "rank-0.img", 1000, 0x0123456789abcdefULL, {}, 0.25, 1.5},
           {1, "rank-1.img", 2000, 0xfedcba9876543210ULL, {}, 0.125, 2.0}},
          0.0625};
}

}  // namespace

TEST_CASE("a MANIFEST round-trips through JSON", "[storage][manifest]") {
  const auto text = to_json_text(sample());
  CHECK(manifest_from_json_text(text, "MANIFEST") == sample());
  // Hashes are hex strings: JSON numbers lose precision above 2^53 in other tools.
  const auto json = nlohmann::json::parse(text);
  CHECK(json["images"][1]["xxh64"] == "fedcba9876543210");
  CHECK(json["format"] == 1);
  CHECK(json["epoch"] == 7);
  CHECK(json["job_id"] == "yk-1a2b");
  CHECK(json["world_size"] == 2);
  CHECK(json["flavour"] == "mpich");
  CHECK(json["commit_time"] == "2025-01-02T03:04:05Z");
  CHECK(json["images"][0]["file"] == "rank-0.img");
  CHECK(json["images"][0]["size"] == 1000);
  CHECK(json["images"][1]["drain_seconds"] == 0.125);
  CHECK(json["images"][1]["write_seconds"] == 2.0);
  CHECK(json["cut_seconds"] == 0.0625);
}

TEST_CASE("a MANIFEST names the images in DMTCP's layout, and only those", "[storage][manifest]") {
  Manifest manifest = sample();
  manifest.images[1].layout = "dmtcp";
  const auto text = to_json_text(manifest);
  CHECK(manifest_from_json_text(text, "MANIFEST") == manifest);
  const auto json = nlohmann::json::parse(text);
  CHECK_FALSE(json["images"][0].contains("layout"));  // yadokari's own: as MANIFESTs were before
  CHECK(json["images"][1]["layout"] == "dmtcp");

  yadokari::image::WrittenImage written{"/ckpt/7/rank-1.img", 2000, 0xfeed, 5, 0, yadokari::image::ImageLayout::dmtcp};
  CHECK(manifest_image(1, written).layout == "dmtcp");
  written.layout = yadokari::image::ImageLayout::yadokari;
  CHECK(manifest_image(1, written).layout.empty());
}

TEST_CASE("a MANIFEST without the ranks' checkpoint times reads them as 0", "[storage][manifest]") {
  auto json = nlohmann::json::parse(to_json_text(sample()));
  for (auto& image : json["images"]) {
    image.erase("drain_seconds");
    image.erase("write_seconds");
  }
  json.erase("cut_seconds");
  const Manifest read = manifest_from_json_text(json.dump(), "MANIFEST");
  CHECK(read.cut_seconds == 0.0);
  REQUIRE(read.images.size() == 2);
  CHECK(read.images[1].drain_seconds == 0.0);
  CHECK(read.images[1].write_seconds == 0.0);
  CHECK(read.images[1].xxh64 == 0xfedcba9876543210ULL);
}

TEST_CASE("a broken MANIFEST is reported with its origin", "[storage][manifest]") {
  CHECK_THROWS_WITH(manifest_from_json_text("{", "MANIFEST"), Catch::Matchers::StartsWith("MANIFEST: unreadable: "));
  auto json = nlohmann::json::parse(to_json_text(sample()));
  json["images"][0]["xxh64"] = "xyz";
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"),
                    "M: unreadable: xxh64 must be 16 lower-case hex digits, not 'xyz'");
  json = nlohmann::json::parse(to_json_text(sample()));
  json["format"] = 2;
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"), "M: unreadable: unsupported MANIFEST format 2");
  json.erase("format");
  CHECK_THROWS_AS(manifest_from_json_text(json.dump(), "M"), StorageError);
}

TEST_CASE("the commit time is ISO 8601 UTC", "[storage][manifest]") {
  const auto now = utc_now_iso8601();
  REQUIRE(now.size() == 20);
  CHECK(now[4] == '-');
  CHECK(now[10] == 'T');
  CHECK(now.back() == 'Z');
}

TEST_CASE("numbers out of their field's range are refused, never narrowed", "[storage][manifest]") {
  auto json = nlohmann::json::parse(to_json_text(sample()));
  json["world_size"] = 4294967298ull;  // would narrow to 2
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"),
                    "M: unreadable: world_size must be a whole number from 0 to 4294967295, not 4294967298");
  json = nlohmann::json::parse(to_json_text(sample()));
  json["images"][0]["rank"] = -1;
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"),
                    "M: unreadable: rank must be a whole number from 0 to 4294967295, not -1");
  json = nlohmann::json::parse(to_json_text(sample()));
  json["epoch"] = 1.5;
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"),
                    "M: unreadable: epoch must be a whole number from 0 to 18446744073709551615, not 1.5");
}

TEST_CASE("a format number no int can hold is refused, not converted (tests/fuzz/)", "[storage][manifest]") {
  auto json = nlohmann::json::parse(to_json_text(sample()));
  json["format"] = 1e300;
  CHECK_THROWS_WITH(manifest_from_json_text(json.dump(), "M"),
                    "M: unreadable: format must be a whole number from -2147483648 to 2147483647, not 1e+300");
}
