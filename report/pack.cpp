#include "pack.hpp"

#include <zlib.h>

#include <array>
#include <optional>
#include <stdexcept>

namespace apod::report {

namespace {

constexpr std::size_t smallest_packed = 2048;
constexpr std::string_view json_open = "<script type=\"application/json\"";
constexpr std::string_view script_close = "</script>";
constexpr std::string_view values_open = "<details class=\"values\"";
constexpr std::string_view group_open = "<details class=\"figure-group\"";
constexpr std::string_view summary_close = "</summary>";
constexpr std::string_view details_open = "<details";
constexpr std::string_view details_close = "</details>";
constexpr std::string_view html_block_open = "<script type=\"text/html\" ";
constexpr const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 |
                       (unsigned char)bytes[i + 2];
    for (int shift : {18, 12, 6, 0})
      out += alphabet[(v >> shift) & 63];
  }
  if (const std::size_t left = bytes.size() - i; left > 0) {
    const unsigned v =
        (unsigned char)bytes[i] << 16 | (left == 2 ? (unsigned char)bytes[i + 1] << 8 : 0u);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += left == 2 ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string unbase64(std::string_view text) {
  std::array<int, 256> value;
  value.fill(-1);
  for (int i = 0; i < 64; ++i)
    value[(unsigned char)alphabet[i]] = i;
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=')
      break;
    const int v = value[(unsigned char)c];
    if (v < 0)
      throw std::runtime_error("a packed block holds a character outside base64");
    bits = bits << 6 | unsigned(v);
    if ((count += 6) >= 8) {
      count -= 8;
      out += char((bits >> count) & 0xff);
    }
  }
  return out;
}

// The end of the <details> element whose opening tag starts at `open`, nested ones counted.
std::size_t details_end(const std::string& html, std::size_t open) {
  int depth = 0;
  std::size_t at = open;
  while (true) {
    const std::size_t next_open = html.find(details_open, at);
    const std::size_t next_close = html.find(details_close, at);
    if (next_close == std::string::npos)
      return std::string::npos;
    if (next_open != std::string::npos && next_open < next_close) {
      ++depth;
      at = next_open + details_open.size();
    } else {
      if (--depth == 0)
        return next_close;
      at = next_close + details_close.size();
    }
  }
}

// The body of the script element whose opening tag holds `from`: where the tag ends (its '>')
// and where "</script>" starts. None when `from` is npos or the element does not close.
struct ScriptBody {
  std::size_t tag_end = 0, close = 0;
  std::string_view text(const std::string& html) const {
    return {html.data() + tag_end + 1, close - tag_end - 1};
  }
};
std::optional<ScriptBody> script_body(const std::string& html, std::size_t from) {
  const std::size_t tag_end = from == std::string::npos ? from : html.find('>', from);
  const std::size_t close =
      tag_end == std::string::npos ? tag_end : html.find(script_close, tag_end);
  if (close == std::string::npos)
    return std::nullopt;
  return ScriptBody{tag_end, close};
}

// The page with each JSON script's body packed, whatever its size: every chart reads its spec
// the same way.
std::string pack_json_blocks(const std::string& html) {
  std::string out;
  out.reserve(html.size() / 4);
  std::size_t at = 0;
  while (true) {
    const std::size_t open = html.find(json_open, at);
    const auto body = script_body(html, open);
    if (!body)
      break;
    out.append(html, at, open + json_open.size() - at);
    out += ' ';
    out += packed_attribute;
    out.append(html, open + json_open.size(), body->tag_end + 1 - open - json_open.size());
    out += deflate_base64(body->text(html));
    at = body->close;
  }
  out.append(html, at, std::string::npos);
  return out;
}

// The page with the content of each details element opening with `opening` packed.
std::string pack_folded(const std::string& html, std::string_view opening) {
  std::string out;
  out.reserve(html.size() / 2);
  std::size_t at = 0;
  while (true) {
    const std::size_t open = html.find(opening, at);
    if (open == std::string::npos)
      break;
    const std::size_t summary = html.find(summary_close, open);
    const std::size_t end = details_end(html, open);
    if (summary == std::string::npos || end == std::string::npos || summary > end)
      break;
    const std::size_t body = summary + summary_close.size();
    out.append(html, at, body - at);
    const std::string_view content(html.data() + body, end - body);
    if (content.size() >= smallest_packed) {
      out += html_block_open;
      out += packed_attribute;
      out += '>';
      out += deflate_base64(content);
      out += script_close;
    } else {
      out += content;
    }
    at = end;
  }
  out.append(html, at, std::string::npos);
  return out;
}

} // namespace

std::string deflate_base64(std::string_view bytes) {
  uLongf size = compressBound(bytes.size());
  std::string deflated(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(deflated.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), bytes.size(), 9) != Z_OK)
    throw std::runtime_error("zlib could not deflate a block of the page");
  deflated.resize(size);
  return base64(deflated);
}

std::string inflate_base64(std::string_view text) {
  const std::string deflated = unbase64(text);
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK)
    throw std::runtime_error("zlib could not start inflating");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(deflated.data()));
  stream.avail_in = static_cast<uInt>(deflated.size());
  std::string out;
  std::array<char, 1 << 16> buffer;
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = buffer.size();
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - stream.avail_out);
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END)
    throw std::runtime_error("a packed block of the page is damaged");
  return out;
}

std::string pack_page(const std::string& html) {
  return pack_folded(pack_folded(pack_json_blocks(html), values_open), group_open);
}

std::string unpack_page(const std::string& html) {
  std::string out;
  out.reserve(html.size() * 4);
  std::size_t at = 0;
  const std::string marker = " " + std::string(packed_attribute);
  while (true) {
    const std::size_t mark = html.find(marker, at);
    const auto body = script_body(html, mark);
    if (!body)
      break;
    const std::string_view packed = body->text(html);
    const std::size_t tag_start = html.rfind("<script", mark);
    if (html.compare(tag_start, html_block_open.size(), html_block_open) == 0) {
      // A table's content: the script element was not in the page.
      out.append(html, at, tag_start - at);
      out += unpack_page(inflate_base64(packed)); // it may hold packed blocks of its own
      at = body->close + script_close.size();
    } else {
      out.append(html, at, mark - at);
      out.append(html, mark + marker.size(), body->tag_end + 1 - mark - marker.size());
      out += inflate_base64(packed);
      at = body->close;
    }
  }
  out.append(html, at, std::string::npos);
  return out;
}

} // namespace apod::report
