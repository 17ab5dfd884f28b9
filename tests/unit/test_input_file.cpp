// Every input is bounded (issue 10): size checked before reading, /dev/zero refused at once,
// gzip bounded after decompression, JSON bounded in nesting, values, members and string length.
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/output_file.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace apod;

namespace {

const limits::JsonLimits small{1024, 4, 100, 8, 16, "a test input"};

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("apod-in-" + std::to_string(getpid()) + "-" + name))
      .string();
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

} // namespace

TEST(InputFile, RefusesALargeFileBeforeReadingIt) {
  const auto path = temp_path("sparse.json");
  { std::ofstream(path) << "{}"; }
  fs::resize_file(path, limits::results_document.max_bytes + 1); // sparse: nothing to read
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(mentions(refusal([&] { read_input_file(path, limits::results_document); }),
                       "larger than 256 MiB, the limit for an apod-results document"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  fs::remove(path);
}

TEST(InputFile, RefusesDevZeroAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(mentions(refusal([] { read_input_file("/dev/zero", limits::results_document); }),
                       "holds binary data"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_TRUE(mentions(refusal([] { read_input_file("/nonexistent/x", small); }), "cannot read"));
  EXPECT_TRUE(mentions(refusal([] { read_input_file("/tmp", small); }), "is a directory"));
}

TEST(InputFile, ReadsGzipAndRefusesADecompressionBomb) {
  const auto path = temp_path("doc.json.gz");
  write_output(path, "{\"a\": [1, 2, 3]}", {});
  EXPECT_EQ(read_input_file(path, small), "{\"a\": [1, 2, 3]}");
  write_output(path, std::string(4096, ' '), {}); // 4 KiB of text compresses to a few bytes
  EXPECT_LT(fs::file_size(path), 100u);
  EXPECT_TRUE(
      mentions(refusal([&] { read_input_file(path, small); }), "decompresses to more than"));
  std::string packed;
  {
    std::ifstream in(path, std::ios::binary);
    packed.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_TRUE(
      mentions(refusal([&] { gunzip(packed.substr(0, packed.size() / 2), 1 << 20, "cut"); }),
               "damaged or truncated gzip"));
  fs::remove(path);
}

TEST(InputFile, JsonIsBoundedInEveryDimension) {
  const auto why = [](const std::string& text) {
    return refusal([&] { parse_bounded_json(text, "t.json", small); });
  };
  EXPECT_EQ(parse_bounded_json(R"({"a": [1, {"b": "c"}]})", "t.json", small).dump(),
            R"({"a":[1,{"b":"c"}]})");
  EXPECT_TRUE(mentions(why("[[[[[1]]]]]"), "deeper than 4 levels"));
  std::string many = "[";
  for (int i = 0; i < 150; ++i)
    many += (i ? ",1" : "1");
  EXPECT_TRUE(mentions(why(many + "]"), "more than 100 values"));
  EXPECT_TRUE(mentions(why(R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9})"),
                       "more than 8 members"));
  EXPECT_TRUE(mentions(why(R"(["0123456789abcdefg"])"), "a string of 17 bytes"));
  EXPECT_TRUE(mentions(why(R"({"0123456789abcdefg": 1})"), "a string of 17 bytes"));
  EXPECT_TRUE(mentions(why(R"({"a": 1, "a": 2})"), "repeats the key \"a\""));
  EXPECT_TRUE(mentions(why(std::string(2000, ' ')), "larger than"));
  EXPECT_TRUE(mentions(why("{"), "not valid JSON"));
}
