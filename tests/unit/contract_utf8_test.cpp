// contract_utf8_test.cpp — the serializer's byte checks (json.h): valid_utf8 on hostile input
// (overlongs, surrogates, truncations, every position of the fast path) and RFC 4648 base64.
#include "bytes_helpers.h"
#include "contract/json.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using contract::base64;
using contract::Json;
using contract::unbase64;
using contract::valid_utf8;
using test_bytes::B;
using test_bytes::contains_replacement_char;

// ---------------------------------------------------------------- valid_utf8: hostile input

TEST(ContractJson, Utf8RejectsOverlongs) {
  EXPECT_FALSE(valid_utf8(B({0xC0, 0x80})));              // U+0000 in two bytes
  EXPECT_FALSE(valid_utf8(B({0xC1, 0xBF})));              // U+007F in two bytes
  EXPECT_FALSE(valid_utf8(B({0xE0, 0x80, 0x80})));        // U+0000 in three bytes
  EXPECT_FALSE(valid_utf8(B({0xE0, 0x9F, 0xBF})));        // U+07FF in three bytes
  EXPECT_FALSE(valid_utf8(B({0xF0, 0x80, 0x80, 0x80})));  // U+0000 in four bytes
  EXPECT_FALSE(valid_utf8(B({0xF0, 0x8F, 0xBF, 0xBF})));  // U+FFFF in four bytes
  EXPECT_FALSE(valid_utf8(B({0xC0, 0xAF})));              // the classic overlong '/'
  EXPECT_FALSE(valid_utf8(B({0xE0, 0x80, 0xAF})));
}

TEST(ContractJson, Utf8RejectsSurrogates) {
  EXPECT_FALSE(valid_utf8(B({0xED, 0xA0, 0x80})));  // U+D800
  EXPECT_FALSE(valid_utf8(B({0xED, 0xAF, 0xBF})));  // U+DBFF
  EXPECT_FALSE(valid_utf8(B({0xED, 0xB0, 0x80})));  // U+DC00
  EXPECT_FALSE(valid_utf8(B({0xED, 0xBF, 0xBF})));  // U+DFFF
  // A surrogate pair encoded as two three-byte sequences (CESU-8) is not UTF-8 either.
  EXPECT_FALSE(valid_utf8(B({0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80})));
  // The neighbours are fine.
  EXPECT_TRUE(valid_utf8(B({0xED, 0x9F, 0xBF})));  // U+D7FF
  EXPECT_TRUE(valid_utf8(B({0xEE, 0x80, 0x80})));  // U+E000
}

TEST(ContractJson, Utf8RejectsPastMaxCodePoint) {
  EXPECT_FALSE(valid_utf8(B({0xF4, 0x90, 0x80, 0x80})));  // U+110000
  EXPECT_FALSE(valid_utf8(B({0xF4, 0xBF, 0xBF, 0xBF})));
  EXPECT_FALSE(valid_utf8(B({0xF5, 0x80, 0x80, 0x80})));
  EXPECT_FALSE(valid_utf8(B({0xF7, 0xBF, 0xBF, 0xBF})));
  EXPECT_TRUE(valid_utf8(B({0xF4, 0x8F, 0xBF, 0xBF})));  // U+10FFFF, the last one
}

TEST(ContractJson, Utf8RejectsFiveAndSixByteForms) {
  EXPECT_FALSE(valid_utf8(B({0xF8, 0x88, 0x80, 0x80, 0x80})));        // 5-byte U+200000
  EXPECT_FALSE(valid_utf8(B({0xFB, 0xBF, 0xBF, 0xBF, 0xBF})));
  EXPECT_FALSE(valid_utf8(B({0xFC, 0x84, 0x80, 0x80, 0x80, 0x80})));  // 6-byte U+4000000
  EXPECT_FALSE(valid_utf8(B({0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF})));
  EXPECT_FALSE(valid_utf8(B({0xFE})));
  EXPECT_FALSE(valid_utf8(B({0xFF})));
  EXPECT_FALSE(valid_utf8(B({0xFE, 0xFF})));  // a UTF-16 BOM read as bytes
}

TEST(ContractJson, Utf8RejectsLoneContinuationBytes) {
  for (int c = 0x80; c <= 0xBF; ++c) {
    EXPECT_FALSE(valid_utf8(B({c}))) << std::hex << c;
    EXPECT_FALSE(valid_utf8("a" + B({c}) + "b")) << std::hex << c;
  }
  // One continuation too many after a complete sequence.
  EXPECT_FALSE(valid_utf8(B({0xC3, 0xA9, 0xA9})));
  EXPECT_FALSE(valid_utf8(B({0xE2, 0x82, 0xAC, 0x80})));
}

TEST(ContractJson, Utf8RejectsTruncatedSequences) {
  // Every proper prefix of a multi-byte sequence, at the very end of the input (where a
  // validator that peeks past the end would go wrong), and followed by ASCII.
  const std::vector<std::string> seqs = {
      B({0xC3, 0xA9}),              // é
      B({0xE2, 0x82, 0xAC}),        // €
      B({0xF0, 0x9F, 0x98, 0x80}),  // 😀
      B({0xF4, 0x8F, 0xBF, 0xBF}),  // U+10FFFF
  };
  for (const auto& seq : seqs) {
    ASSERT_TRUE(valid_utf8(seq));
    for (size_t len = 1; len < seq.size(); ++len) {
      std::string cut = seq.substr(0, len);
      EXPECT_FALSE(valid_utf8(cut)) << len;
      EXPECT_FALSE(valid_utf8("abc" + cut)) << len;
      EXPECT_FALSE(valid_utf8(std::string(16, 'x') + cut)) << len;  // after the fast path
      EXPECT_FALSE(valid_utf8(cut + "z")) << len;
      EXPECT_FALSE(valid_utf8(cut + seq)) << len;
    }
  }
  // A truncated sequence inside a std::string_view whose underlying buffer goes on with
  // a valid continuation byte: the view's end must be respected.
  std::string buf = B({'a', 0xE2, 0x82, 0xAC});
  EXPECT_TRUE(valid_utf8(buf));
  EXPECT_FALSE(valid_utf8(std::string_view(buf).substr(0, 3)));
  EXPECT_FALSE(valid_utf8(std::string_view(buf).substr(0, 2)));
}

TEST(ContractJson, Utf8AcceptsValidForms) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8(std::string_view("\0", 1)));  // NUL is a valid code point
  EXPECT_TRUE(valid_utf8("plain ascii \x7F"));
  EXPECT_TRUE(valid_utf8(B({0xC2, 0x80})));               // U+0080, smallest 2-byte
  EXPECT_TRUE(valid_utf8(B({0xDF, 0xBF})));               // U+07FF
  EXPECT_TRUE(valid_utf8(B({0xE0, 0xA0, 0x80})));         // U+0800, smallest 3-byte
  EXPECT_TRUE(valid_utf8(B({0xEF, 0xBF, 0xBF})));         // U+FFFF
  EXPECT_TRUE(valid_utf8(B({0xEF, 0xBB, 0xBF})));         // BOM
  EXPECT_TRUE(valid_utf8(B({0xF0, 0x90, 0x80, 0x80})));   // U+10000, smallest 4-byte
  EXPECT_TRUE(valid_utf8(B({0xF3, 0xBF, 0xBF, 0xBF})));
  EXPECT_TRUE(valid_utf8("h\xC3\xA9llo w\xC3\xB6rld \xE2\x82\xAC \xF0\x9F\x98\x80 \xE4\xB8\xAD"));
  // Every scalar value in the BMP but the surrogates round-trips through an encoder here.
  auto enc = [](uint32_t cp) {
    std::string s;
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
  };
  size_t bad = 0;
  for (uint32_t cp = 0; cp <= 0x10FFFF; cp += (cp < 0x10000 ? 1 : 97)) {
    bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (valid_utf8(enc(cp)) == surrogate) ++bad;
  }
  EXPECT_EQ(bad, 0u);
}

TEST(ContractJson, Utf8FastPathSeesEveryPosition) {
  // The validator reads eight ASCII bytes at a time; an invalid byte at any position of a
  // 21-byte string (two whole words and a tail) must be found.
  for (int bad : {0x80, 0xBF, 0xC0, 0xFF, 0xF8}) {
    for (size_t pos = 0; pos <= 20; ++pos) {
      std::string s(21, 'a');
      s[pos] = static_cast<char>(bad);
      EXPECT_FALSE(valid_utf8(s)) << "byte " << std::hex << bad << " at " << std::dec << pos;
    }
  }
  // A valid multi-byte sequence at any position, across word boundaries, is fine...
  for (size_t pos = 0; pos + 4 <= 21; ++pos) {
    std::string s(21, 'a');
    s.replace(pos, 4, B({0xF0, 0x9F, 0x98, 0x80}));
    EXPECT_TRUE(valid_utf8(s)) << pos;
    // ...and the same sequence cut short by an ASCII byte is not.
    s[pos + 3] = 'a';
    EXPECT_FALSE(valid_utf8(s)) << pos;
  }
  EXPECT_TRUE(valid_utf8(std::string(21, 'a')));
  EXPECT_TRUE(valid_utf8(std::string(4096, 'z')));
  std::string big(4096, 'z');
  big[4095] = static_cast<char>(0x80);
  EXPECT_FALSE(valid_utf8(big));
}

// ---------------------------------------------------------------- base64

TEST(ContractJson, Base64Rfc4648Vectors) {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},         {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64(plain), encoded) << plain;
    std::string back = "garbage";
    EXPECT_TRUE(unbase64(encoded, back)) << encoded;
    EXPECT_EQ(back, plain) << encoded;
  }
  // The high alphabet and bytes with the top bit set.
  EXPECT_EQ(base64(B({0xFB, 0xFF})), "+/8=");
  EXPECT_EQ(base64(B({0xFF, 0xFF, 0xFF})), "////");
  EXPECT_EQ(base64(B({0x00, 0x00, 0x00})), "AAAA");
  EXPECT_EQ(base64(std::string_view("\0", 1)), "AA==");
}

TEST(ContractJson, Base64RoundTripsRandomBytes) {
  std::mt19937_64 rng(20240611);
  for (size_t len = 0; len < 300; ++len) {
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xFF);
    std::string enc = base64(s);
    ASSERT_EQ(enc.size(), (len + 2) / 3 * 4) << len;
    ASSERT_EQ(enc.find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
              std::string::npos);
    std::string back;
    ASSERT_TRUE(unbase64(enc, back)) << len;
    ASSERT_EQ(back, s) << len;
  }
}

TEST(ContractJson, Unbase64RejectsMalformed) {
  const char* bad[] = {
      "Zg",        // padding missing
      "Zg=",       // padding short
      "Zm9",       // not a multiple of four
      "Zg===",     // padding too long
      "Z===",      // three pad characters
      "====",      // nothing but padding
      "=Zg=",      // padding first
      "Z=g=",      // data after padding inside a quad
      "Zg=a",      // data after padding
      "Zg==Zg==",  // padding before the end
      "Zm8=Zm9v",  // padding before the end
      "Zm9v\n",    // whitespace
      "Zm 9v",     // whitespace
      "Zm9-",      // base64url alphabet is not RFC 4648 §4
      "Zm9_",
      "Zm9\x80",   // a high byte
  };
  for (const char* b : bad) {
    std::string out;
    EXPECT_FALSE(unbase64(b, out)) << b;
  }
  std::string out;
  EXPECT_FALSE(unbase64(std::string_view("Zm\0v", 4), out));  // an embedded NUL
  EXPECT_TRUE(unbase64("", out));
  EXPECT_EQ(out, "");
}

}  // namespace
