// platform/json_file.h: parse_json_text refuses a key given twice in one object, at the JSON
// path of the repeat, and reports malformed JSON as before.
#include "platform/json_file.h"

#include <gtest/gtest.h>

#include <string>

namespace sbrdma::platform {
namespace {

std::string parse_error(const std::string& text) {
  auto j = parse_json_text(text, "in.json");
  return j.ok() ? "ok" : j.error().format();
}

TEST(JsonFile, ARepeatedKeyIsRefusedAtItsPath) {
  EXPECT_EQ(parse_error(R"({"chips": 1, "chips": 4})"),
            R"(in.json: error: /chips: duplicate key "chips")");
  EXPECT_EQ(parse_error(R"({"replica_groups": [[0, 1]], "replica_groups": [[0, 1]]})"),
            R"(in.json: error: /replica_groups: duplicate key "replica_groups")");
  // Inside arrays and objects: indices count every kind of element before it.
  EXPECT_EQ(parse_error(R"({"links": [{"from": 0, "to": 1}, [], 7, {"from": 1, "from": 2}]})"),
            R"(in.json: error: /links/3/from: duplicate key "from")");
  EXPECT_EQ(parse_error(R"({"params": {"a": {"x": 1}, "b": 2, "b": 3}})"),
            R"(in.json: error: /params/b: duplicate key "b")");
  EXPECT_EQ(parse_error(R"([[{}], [{"k": [1, {"a": 1}], "k": 0}]])"),
            R"(in.json: error: /1/0/k: duplicate key "k")");
  // The path escapes '/' and '~' (RFC 6901); the key is printed as a JSON string.
  EXPECT_EQ(parse_error(R"({"a/b~": 1, "a/b~": 2})"),
            R"(in.json: error: /a~1b~0: duplicate key "a/b~")");
  EXPECT_EQ(parse_error(R"({"q\"": 1, "q\"": 2})"), R"(in.json: error: /q": duplicate key "q\"")");
  // A control byte in a key is escaped in the path, so the message stays on one line.
  EXPECT_EQ(parse_error("{\"a\\n\": 1, \"a\\n\": 2}"),
            R"(in.json: error: /a\x0a: duplicate key "a\n")");
  // The first repeat in the text is the one named.
  EXPECT_EQ(parse_error(R"({"a": {"x": 1, "x": 2}, "a": 3})"),
            R"(in.json: error: /a/x: duplicate key "x")");
}

TEST(JsonFile, ALongKeyIsCutInPathsAndMessages) {
  // A 1 MB key is echoed as its first 37 characters and "...", in the path and the message.
  const std::string key(1 << 20, 'k');
  const std::string cut = std::string(37, 'k') + "...";
  EXPECT_EQ(parse_error("{\"" + key + "\": 1, \"" + key + "\": 2}"),
            "in.json: error: /" + cut + ": duplicate key \"" + std::string(36, 'k') + "...");
  EXPECT_EQ(json_child("/params", key), "/params/" + cut);
  EXPECT_EQ(json_child("", std::string(40, 'k')), "/" + std::string(40, 'k'));
  // The key is cut as printable_brief cuts it (never half a \xNN), then '~' and '/' escaped.
  EXPECT_EQ(json_child("", std::string(36, 'k') + "\n" + key), "/" + std::string(36, 'k') + "...");
  EXPECT_EQ(json_child("", "/~" + key), "/~1~0" + std::string(35, 'k') + "...");
}

TEST(JsonFile, EqualKeysInDifferentObjectsAreFine) {
  EXPECT_EQ(parse_error(R"([{"a": 1}, {"a": 2}])"), "ok");
  EXPECT_EQ(parse_error(R"({"a": {"a": {"a": 1}}, "b": [{"a": 1, "b": 2}]})"), "ok");
  EXPECT_EQ(parse_error(R"({"A": 1, "a": 2, "a ": 3})"), "ok");
  auto j = parse_json_text(R"({"x": [1, {"y": null}], "z": "s"})", "in.json");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->dump(), R"({"x":[1,{"y":null}],"z":"s"})");
}

TEST(JsonFile, ANumberPastADoublesRangeIsMalformedJsonWithItsLine) {
  // nlohmann throws out_of_range, not parse_error, for these: still one message, exit 1.
  EXPECT_EQ(parse_error("[[0,\n 1e400]]"),
            "in.json:2: error: malformed JSON: number overflow parsing '1e400'");
  EXPECT_EQ(parse_error("{\"a\": {\"b\":\n\n-1e999}}"),
            "in.json:3: error: malformed JSON: number overflow parsing '-1e999'");
  EXPECT_TRUE(parse_json_text("[1e308, 18446744073709551616]", "in.json").ok());
}

TEST(JsonFile, NestingPastTheLimitIsRefusedBeforeADocumentIsBuilt) {
  const auto nested = [](std::size_t levels) {
    return "{\"a\":" + std::string(levels - 1, '[') + std::string(levels - 1, ']') + "}";
  };
  EXPECT_TRUE(parse_json_text(nested(kMaxJsonNesting), "d.json").ok());
  const std::string refused =
      "d.json: error: arrays and objects nest deeper than 64 levels (a topology, replica-group or "
      "pairs file needs at most 4)";
  auto deeper = parse_json_text(nested(kMaxJsonNesting + 1), "d.json");
  ASSERT_FALSE(deeper.ok());
  EXPECT_EQ(deeper.error().format(), refused);
  // A million levels: refused at once (the DOM of five million took over 1 GB).
  auto bomb = parse_json_text(nested(1'000'000), "d.json");
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.error().format(), refused);
  // A document malformed before the limit is told as malformed, with its line.
  auto bad = parse_json_text("{\"a\":1,,\n\"b\":" + std::string(100, '[') + "}", "d.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().loc.line, 1);
  EXPECT_NE(bad.error().message.find("malformed JSON"), std::string::npos);
}

TEST(JsonFile, MalformedJsonKeepsItsLineAndMessage) {
  // A syntax error is reported as before, even after a repeated key.
  auto j = parse_json_text("{\"a\": 1,\n\"a\": 2,\n\"b\" 3}", "in.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().format(),
            "in.json:3: error: malformed JSON: syntax error while parsing object separator - "
            "unexpected number literal; expected ':'");
  EXPECT_EQ(parse_error("[1, 2"),
            "in.json:1: error: malformed JSON: syntax error while parsing array - unexpected end "
            "of input; expected ']'");
  EXPECT_EQ(parse_error("{} {}"),
            "in.json:1: error: malformed JSON: syntax error while parsing value - unexpected '{'; "
            "expected end of input");
  // The token nlohmann quotes is cut as an echoed token is: it may be a whole 1 MB key.
  const std::string key(1 << 20, 'k');
  const std::string cut = "\"" + std::string(36, 'k') + "...";
  EXPECT_EQ(parse_error("{\"" + key),
            "in.json:1: error: malformed JSON: syntax error while parsing object key - invalid "
            "string: missing closing quote; last read: '" +
                cut + "'; expected string literal");
  EXPECT_EQ(parse_error("{\"" + key + "\": tru}"),
            "in.json:1: error: malformed JSON: syntax error while parsing value - invalid "
            "literal; last read: '" +
                cut + "'");
  EXPECT_EQ(parse_error("[\"'; expected " + key),
            "in.json:1: error: malformed JSON: syntax error while parsing value - invalid "
            "string: missing closing quote; last read: '\"'; expected " +
                std::string(24, 'k') + "...'");
  EXPECT_EQ(parse_error("[-x]"),
            "in.json:1: error: malformed JSON: syntax error while parsing value - invalid "
            "number; expected digit after '-'; last read: '-x'");
  EXPECT_EQ(parse_error("[1x]"),
            "in.json:1: error: malformed JSON: syntax error while parsing array - invalid "
            "literal; last read: '1x'; expected ']'");
  // A NUL byte would end the text for nlohmann; what follows it must not pass unread.
  EXPECT_EQ(parse_error(std::string("[[0, 1]]\n\0[[2, 3]]", 18)),
            "in.json:2: error: malformed JSON: a NUL byte (JSON text has none)");
  EXPECT_EQ(parse_error(std::string("[[0, 1]]\0", 9)),
            "in.json:1: error: malformed JSON: a NUL byte (JSON text has none)");
}

/// parse_json_list's answer for `text`: the list's path and size, or the error.
std::string list_of(const std::string& text) {
  auto l = parse_json_list(text, "in.json", "groups", "groups");
  return l.ok() ? "at '" + l->at + "', " + std::to_string(l->list.size()) : l.error().format();
}

TEST(JsonFile, AListIsTheDocumentOrAnObjectsOnlyField) {
  EXPECT_EQ(list_of("[[0], [1]]"), "at '', 2");
  EXPECT_EQ(list_of(R"({"groups": [[0]]})"), "at '/groups', 1");
  EXPECT_EQ(list_of(R"({"groups": [[0]], "x": 1})"), "in.json: error: /x: unknown field");
  EXPECT_EQ(list_of(R"({"groups": [[0]], "": 1})"),
            R"(in.json: error: /: unknown field "" (an empty key))");
  EXPECT_EQ(list_of(R"({"x": 1})"),
            R"(in.json: error: /: expected a list of groups or an object with "groups")");
  EXPECT_EQ(list_of("[]"), "in.json: error: /: expected a non-empty list of groups");
  EXPECT_EQ(list_of(R"({"groups": 3})"),
            "in.json: error: /groups: expected a non-empty list of groups");
  EXPECT_EQ(list_of(R"({"groups": [], "groups": [[0]]})"),
            R"(in.json: error: /groups: duplicate key "groups")");
  EXPECT_EQ(list_of("{\"groups\": [[0]], \"" + std::string(1 << 20, 'x') + "\": 1}"),
            "in.json: error: /" + std::string(37, 'x') + "...: unknown field");
}

}  // namespace
}  // namespace sbrdma::platform
