// RecordIO framing, image records, .idx files and the image codec, checked
// against files MXNet 1.9.1 wrote (tests/testdata/recordio, made by
// make_recordio_files.py there) in both directions: symx reads MXNet's files,
// and symx's writer reproduces MXNet's bytes exactly (so MXNet reads symx's).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "devices/npy.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/expect_contains.h"
#include "train/image/codec.h"
#include "train/recordio/image_record.h"
#include "train/recordio/record_file.h"
#include "train/recordio/record_index.h"
#include "train/recordio/record_set.h"

namespace symx::recordio {
namespace {

const std::string kDir = "tests/testdata/recordio/";

std::string ReadFile(const std::string& path) { return ValueOrThrow(ReadFileBytes(path)); }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", name);
}

std::vector<std::string> GoldenPayloads() {
  auto json = nlohmann::json::parse(ReadFile(kDir + "framing.json"));
  std::vector<std::string> out;
  for (const auto& hex : json["payloads"])
    out.push_back(absl::HexStringToBytes(hex.get<std::string>()));
  return out;
}

TEST(RecordFileTest, ReadsMxnetFramingInOrder) {
  std::vector<std::string> expected = GoldenPayloads();
  auto reader = RecordReader::Open(kDir + "framing.rec");
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string payload;
  for (size_t i = 0; i < expected.size(); ++i) {
    auto more = (*reader)->Next(&payload);
    ASSERT_TRUE(more.ok()) << more.status();
    ASSERT_TRUE(*more) << "record " << i;
    EXPECT_EQ(payload, expected[i]) << "record " << i;
  }
  auto more = (*reader)->Next(&payload);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

TEST(RecordFileTest, WriterReproducesMxnetBytesAndIndex) {
  std::string path = TempPath("framing.rec");
  auto writer = RecordWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::vector<IndexEntry> index;
  std::vector<std::string> payloads = GoldenPayloads();
  for (size_t i = 0; i < payloads.size(); ++i) {
    auto at = (*writer)->Write(payloads[i]);
    ASSERT_TRUE(at.ok()) << at.status();
    index.push_back({std::to_string(i), *at});
  }
  // Nothing at PATH until Close: no half-written file.
  EXPECT_FALSE(std::ifstream(path).good());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(ReadFile(path), ReadFile(kDir + "framing.rec"));
  ASSERT_TRUE(WriteIndex(TempPath("framing.idx"), index).ok());
  EXPECT_EQ(ReadFile(TempPath("framing.idx")), ReadFile(kDir + "framing.idx"));
}

TEST(RecordFileTest, SeeksByIndex) {
  std::vector<std::string> expected = GoldenPayloads();
  auto reader = RecordReader::Open(kDir + "framing.rec");
  ASSERT_TRUE(reader.ok());
  auto index = ReadIndex(kDir + "framing.idx", (*reader)->size());
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_EQ(index->size(), expected.size());
  std::string payload;
  for (int i = static_cast<int>(index->size()) - 1; i >= 0; --i) {
    EXPECT_EQ((*index)[i].key, std::to_string(i));
    ASSERT_TRUE((*reader)->Seek((*index)[i].offset).ok());
    ASSERT_TRUE(*(*reader)->Next(&payload));
    EXPECT_EQ(payload, expected[i]);
  }
}

TEST(RecordFileTest, FindsRecordStartsFromAnyByte) {
  auto reader = RecordReader::Open(kDir + "framing.rec");
  ASSERT_TRUE(reader.ok());
  auto index = ReadIndex(kDir + "framing.idx");
  ASSERT_TRUE(index.ok());
  for (uint64_t at = 0; at <= (*reader)->size(); ++at) {
    uint64_t want = (*reader)->size();
    for (const IndexEntry& e : *index) {
      if (e.offset >= at) {
        want = e.offset;
        break;
      }
    }
    auto got = (*reader)->NextRecordStart(at);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, want) << "from byte " << at;
  }
}

TEST(RecordFileTest, TruncatedAndCorruptFilesNameFileAndOffset) {
  std::string good = ReadFile(kDir + "framing.rec");
  std::string payload;
  struct Case {
    std::string name, bytes, message;
  };
  std::string bad_magic = good;
  bad_magic[20] ^= 1;  // the third record's magic (records 0 and 1 take 8 + 12 bytes)
  std::string bad_flag = good;
  bad_flag[7] = static_cast<char>(0x40);  // first record: cflag 2 where one starts
  std::vector<Case> cases = {
      {"cut_header.rec", good.substr(0, 4), "byte 0: not a RecordIO record: the file ends 4 bytes"},
      {"cut_body.rec", good.substr(0, 17), "byte 8: not a RecordIO record: a part of 1 bytes"},
      {"bad_magic.rec", bad_magic,
       "byte 20: not a RecordIO record: expected the magic word 0xced7230a"},
      {"bad_flag.rec", bad_flag, "byte 0: not a RecordIO record: continuation flag 2"},
      {"text.rec", "hello world, not a record", "expected the magic word"},
  };
  for (const Case& c : cases) {
    std::string path = TempPath(c.name);
    WriteFile(path, c.bytes);
    auto reader = RecordReader::Open(path);
    ASSERT_TRUE(reader.ok());
    absl::Status status;
    while (true) {
      auto more = (*reader)->Next(&payload);
      if (!more.ok()) {
        status = more.status();
        break;
      }
      if (!*more) break;
    }
    EXPECT_FALSE(status.ok()) << c.name;
    EXPECT_CONTAINS(std::string(status.message()), path);
    EXPECT_CONTAINS(std::string(status.message()), c.message);
  }
  auto missing = RecordReader::Open(TempPath("no_such.rec"));
  EXPECT_FALSE(missing.ok());
  EXPECT_CONTAINS(std::string(missing.status().message()), "no_such.rec");
}

TEST(RecordFileTest, SplitRecordMissingItsEnd) {
  std::string framed;
  std::string magic = "\x0a\x23\xd7\xce";
  ASSERT_TRUE(FrameRecord("abcd" + magic + "efgh", &framed).ok());
  // Keep only the first part (cflag 1): the file ends mid-record.
  std::string payload;
  auto end = ParseRecord(absl::string_view(framed).substr(0, 12), 0, &payload, "cut.rec");
  ASSERT_FALSE(end.ok());
  EXPECT_CONTAINS(std::string(end.status().message()), "cut.rec: byte 12");
  EXPECT_CONTAINS(std::string(end.status().message()), "truncated");
  auto whole = ParseRecord(framed, 0, &payload);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(payload, "abcd" + magic + "efgh");
  EXPECT_EQ(*whole, framed.size());
}

TEST(RecordFileTest, WriterDroppedWithoutCloseLeavesNoFile) {
  std::string path = TempPath("dropped.rec");
  {
    auto writer = RecordWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write("payload").ok());
  }
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
}

// Writes `payloads` as one .rec file.
void WriteRecords(const std::string& path, const std::vector<std::string>& payloads) {
  auto w = RecordWriter::Create(path);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const std::string& p : payloads) ASSERT_TRUE((*w)->Write(p).ok());
  ASSERT_TRUE((*w)->Close().ok());
}

std::vector<std::string> ReadAll(const RecordSet& set, const std::vector<uint64_t>& offsets) {
  RecordSetReader reader(&set);
  std::vector<std::string> out;
  for (uint64_t offset : offsets) {
    std::string payload;
    auto more = reader.ReadAt(offset, &payload);
    EXPECT_TRUE(more.ok() && *more) << offset;
    out.push_back(payload);
  }
  return out;
}

// Several files, as MXNet's path_imgrec takes them (';', folders, name
// patterns), read as one concatenation: byte ranges that span files find
// each record once, and errors name the file and the offset inside it.
TEST(RecordSetTest, ReadsSeveralFilesAsOneConcatenation) {
  const std::vector<std::string> golden = GoldenPayloads();
  ASSERT_GE(golden.size(), 6u);
  const std::string dir = TempPath("record_set");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/shards");
  const std::vector<std::string> first(golden.begin(), golden.begin() + 4),
      second(golden.begin() + 4, golden.end());
  WriteRecords(dir + "/shards/part-1.rec", second);
  WriteRecords(dir + "/shards/part-0.rec", first);
  WriteFile(dir + "/shards/empty.rec", "");
  WriteFile(dir + "/shards/notes.txt", "not a record");

  for (const std::string& uri :
       {dir + "/shards/part-0.rec;" + dir + "/shards/part-1.rec", dir + "/shards/part-.*\\.rec",
        dir + "/shards/part-0.rec; " + dir + "/shards/part-1.rec;"}) {
    SCOPED_TRACE(uri);
    auto set = RecordSet::Open(uri);
    ASSERT_TRUE(set.ok()) << set.status();
    ASSERT_EQ(set->files().size(), 2u);
    EXPECT_EQ(set->files()[1].start, set->files()[0].size);
    auto all = set->RecordsIn(0, set->size());
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(ReadAll(*set, *all), golden);
    // Three byte ranges over the concatenation: every record exactly once.
    std::vector<uint64_t> joined;
    const uint64_t step = (set->size() / 3 + 3) / 4 * 4;
    for (int part = 0; part < 3; ++part) {
      auto some = set->RecordsIn(step * part, part == 2 ? set->size() : step * (part + 1));
      ASSERT_TRUE(some.ok()) << some.status();
      joined.insert(joined.end(), some->begin(), some->end());
    }
    EXPECT_EQ(joined, *all);
    EXPECT_EQ(set->Where((*all)[5]),
              absl::StrCat(dir, "/shards/part-1.rec: record at byte ", (*all)[5] - (*all)[4]));
  }
  // A folder: its non-empty files by name (notes.txt too: MXNet takes every file).
  auto folder = RecordSet::Open(dir + "/shards");
  ASSERT_TRUE(folder.ok()) << folder.status();
  ASSERT_EQ(folder->files().size(), 3u);
  EXPECT_EQ(folder->files()[0].path, dir + "/shards/notes.txt");
  EXPECT_EQ(folder->files()[1].path, dir + "/shards/part-0.rec");

  std::filesystem::create_directories(dir + "/nothing");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {dir + "/shards/part-0.rec;" + dir + "/missing/x.rec",
       "cannot open RecordIO file " + dir + "/missing/x.rec"},
      {dir + "/shards/part-9.rec", "cannot open RecordIO file " + dir + "/shards/part-9.rec"},
      {dir + "/missing/part-.*", dir + "/missing/part-.*: no such file or folder"},
      {dir + "/shards/zzz-.*", "no file in " + dir + "/shards matches 'zzz-.*'"},
      {dir + "/shards/part-(", "is not a regular expression"},
      {dir + "/nothing", "folder " + dir + "/nothing has no files"},
      {dir + "/shards/empty.rec", "names no non-empty RecordIO file"},
      {";", "names no non-empty RecordIO file"},
  };
  for (const auto& [uri, message] : bad) {
    auto set = RecordSet::Open(uri);
    ASSERT_FALSE(set.ok()) << uri;
    EXPECT_CONTAINS(std::string(set.status().message()), message);
  }
}

TEST(RecordIndexTest, BadLinesNameFileAndLine) {
  struct Case {
    std::string text, message;
  };
  std::vector<Case> cases = {
      {"0\t0\n1\n", "line 2: expected KEY<TAB>OFFSET, found 1 fields"},
      {"0\tabc\n", "line 1: the offset is not a non-negative integer"},
      {"0\t0\n\n1\t6\n", "line 3: offsets of RecordIO records are multiples of 4"},
      {"0\t4096\n", "line 1: offset 4096 is past the end of the .rec file (512 bytes)"},
  };
  for (const Case& c : cases) {
    std::string path = TempPath("bad.idx");
    WriteFile(path, c.text);
    auto index = ReadIndex(path, 512);
    ASSERT_FALSE(index.ok()) << c.text;
    EXPECT_CONTAINS(std::string(index.status().message()), path);
    EXPECT_CONTAINS(std::string(index.status().message()), c.message);
  }
}

TEST(ImageRecordTest, UnpacksMxnetHeadersAndDecodesLikeMxnet) {
  auto meta = nlohmann::json::parse(ReadFile(kDir + "images.json"))["records"];
  auto reader = RecordReader::Open(kDir + "images.rec");
  ASSERT_TRUE(reader.ok());
  std::string payload;
  for (size_t i = 0; i < meta.size(); ++i) {
    SCOPED_TRACE(meta[i]["source"].get<std::string>() + " " + meta[i]["format"].get<std::string>());
    ASSERT_TRUE(*(*reader)->Next(&payload));
    auto record = UnpackImageRecord(payload);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->flag, meta[i]["flag"].get<uint32_t>());
    EXPECT_EQ(record->labels, meta[i]["label"].get<std::vector<float>>());
    EXPECT_EQ(record->id, meta[i]["id"].get<uint64_t>());
    EXPECT_EQ(record->id2, meta[i]["id2"].get<uint64_t>());
    // Packing the same header and image gives MXNet's bytes back.
    EXPECT_EQ(
        PackImageRecord(record->labels, record->id, record->id2, record->image, record->flag > 0),
        payload);
    for (int flag : {1, 0}) {
      auto want = LoadNpy(kDir + meta[i]["decoded"][std::to_string(flag)].get<std::string>());
      ASSERT_TRUE(want.ok()) << want.status();
      auto got = image::Decode(record->image, flag, /*to_rgb=*/true);
      ASSERT_TRUE(got.ok()) << got.status();
      const Shape& s = want->shape();
      ASSERT_EQ(s.ndim(), 3);
      EXPECT_EQ(got->height, s[0]);
      EXPECT_EQ(got->width, s[1]);
      EXPECT_EQ(got->channels, s[2]);
      ASSERT_EQ(got->pixels.size(), static_cast<size_t>(want->size()));
      const uint8_t* w = want->read_data<uint8_t>();
      int differ = 0;
      for (size_t k = 0; k < got->pixels.size(); ++k) differ += got->pixels[k] != w[k];
      EXPECT_EQ(differ, 0) << "flag " << flag;
    }
  }
}

TEST(ImageRecordTest, ShortRecordsAreErrors) {
  auto r = UnpackImageRecord("short", "x.rec: byte 8");
  ASSERT_FALSE(r.ok());
  EXPECT_CONTAINS(std::string(r.status().message()), "x.rec: byte 8: a record of 5 bytes");
  std::string header = PackImageRecord({1, 2, 3}, 0, 0, "");
  auto cut = UnpackImageRecord(absl::string_view(header).substr(0, 30));
  ASSERT_FALSE(cut.ok());
  EXPECT_CONTAINS(std::string(cut.status().message()), "flag 3 says 3 labels (12 bytes)");
}

TEST(ImageCodecTest, RoundTripsAndRefusesGarbage) {
  image::Image img;
  img.height = 5;
  img.width = 7;
  img.channels = 3;
  for (int k = 0; k < 5 * 7 * 3; ++k) img.pixels.push_back(static_cast<uint8_t>(k * 7));
  auto png = image::EncodePng(img, 3, true);
  ASSERT_TRUE(png.ok());
  auto back = image::Decode(*png, -1, true);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->pixels, img.pixels);
  auto bgr = image::Decode(*png, 1, false);
  ASSERT_TRUE(bgr.ok());
  EXPECT_EQ(bgr->pixels[0], img.pixels[2]);
  auto jpg = image::EncodeJpeg(img, 100, true);
  ASSERT_TRUE(jpg.ok());
  EXPECT_EQ(image::Sniff(*jpg), image::Format::kJpeg);
  auto garbage = image::Decode("not an image", 1, true);
  ASSERT_FALSE(garbage.ok());
  EXPECT_CONTAINS(std::string(garbage.status().message()), "neither a JPEG");
  auto cut = image::Decode(jpg->substr(0, 20), 1, true);
  ASSERT_FALSE(cut.ok());
  EXPECT_CONTAINS(std::string(cut.status().message()), "cannot decode JPEG");
  auto cut_png = image::Decode(png->substr(0, 40), 1, true);
  ASSERT_FALSE(cut_png.ok());
  EXPECT_CONTAINS(std::string(cut_png.status().message()), "cannot decode PNG");
  EXPECT_FALSE(image::Decode(*png, 2, true).ok());
}

}  // namespace
}  // namespace symx::recordio
