// The SVG plot of a bench run (platform/bench.h): bus bandwidth against size, one line per
// algorithm. Written by hand, numbers with fixed precision, so the same rows give the same
// bytes. Every piece of text goes through text() and so xml_escape(): the title carries the
// topology's name, which for a JSON topology is the user's file name (`R&D.json`).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "platform/bench.h"

namespace sbrdma::platform {
namespace {

constexpr double kW = 720;
constexpr double kH = 440;
constexpr double kLeft = 70;
constexpr double kRight = 160;
constexpr double kTop = 40;
constexpr double kBottom = 60;
constexpr std::string_view kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};
/// Per line, with its color: a dash pattern (SVG stroke-dasharray, "" solid), so that lines
/// which coincide (two algorithms with the same times) both show, the later one's gaps
/// letting the earlier one through.
constexpr std::string_view kDashes[] = {"", "9 6", "3 4", "12 4 3 4", "1 5"};
/// The marker radius per line: a later line's smaller points sit inside an earlier one's.
constexpr double kMarkerRadius[] = {4.5, 3.5, 2.5, 1.8, 1.2};
/// The most characters the title shows: about 8 px each at 14 px sans-serif, in 720 px.
constexpr std::size_t kTitleChars = 84;
/// The least distance between two size labels: "128K" takes about 28 px at 12 px.
constexpr double kLabelGap = 40;

/// Characters (code points) of UTF-8 text: the bytes that do not continue a sequence.
std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

/// The first `n` characters of UTF-8 text `s` (all of it if it has fewer).
std::string_view first_code_points(std::string_view s, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n) return s.substr(0, i);
  }
  return s;
}

/// "<head><name><tail>", the name cut with an ellipsis so that the whole has at most
/// kTitleChars characters (a topology's name may have 100 bytes). The cut comes after the
/// last blank that fits, so that a parameter's value is whole or absent (`with
/// q7_desc_gen_cost=100000…` read as another value), unless it falls right before a blank or
/// a comma (what is kept ends whole); a name without a blank is cut anywhere.
std::string fitted_title(std::string_view head, std::string_view name, std::string_view tail) {
  const std::size_t fixed = code_points(head) + code_points(tail);
  std::string out(head);
  if (fixed + code_points(name) <= kTitleChars) {
    out += name;
  } else {
    std::string_view kept =
        first_code_points(name, kTitleChars > fixed + 1 ? kTitleChars - fixed - 1 : 1);
    const bool ends_whole =
        kept.size() < name.size() && (name[kept.size()] == ' ' || name[kept.size()] == ',');
    if (const std::size_t blank = kept.rfind(' '); !ends_whole && blank != std::string_view::npos) {
      kept = kept.substr(0, blank + 1);  // a value cut short: all of it goes
    }
    out += kept;
    out += "\u2026";
  }
  out += tail;
  return out;
}

std::string size_label(std::uint64_t b) {
  if (b >= (1ULL << 30)) return fmt::format("{}G", b >> 30);
  if (b >= (1ULL << 20)) return fmt::format("{}M", b >> 20);
  if (b >= (1ULL << 10)) return fmt::format("{}K", b >> 10);
  return fmt::format("{}", b);
}

/// `s` as XML character data: &, <, >, " and ' as entities (safe in an attribute value too).
std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A `<text>` element, which ends its line of the plot: `attrs` are the plot's own (numbers and
/// fixed words), `content` is escaped.
std::string text(std::string_view attrs, std::string_view content) {
  return fmt::format("<text {}>{}</text>\n", attrs, xml_escape(content));
}

/// A round step for about `n` ticks up to `top`.
double nice_step(double top, int n) {
  const double raw = top / n;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

}  // namespace

std::string format_plot(const BenchOptions& o, const BenchResult& r) {
  std::uint64_t lo = ~std::uint64_t{0};
  std::uint64_t hi = 0;
  double top = 0;
  for (const BenchRow& row : r.rows) {
    lo = std::min(lo, row.size);
    hi = std::max(hi, row.size);
    top = std::max(top, row.busbw);
  }
  if (r.rows.empty()) lo = hi = 1;
  const double step = nice_step(top > 0 ? top : 1, 5);
  const double ymax = step * std::ceil((top > 0 ? top : 1) / step);
  const double x0 = std::log2(static_cast<double>(lo));
  const double x1 = std::max(x0 + 1, std::log2(static_cast<double>(hi)));
  const double pw = kW - kLeft - kRight;
  const double ph = kH - kTop - kBottom;
  auto X = [&](std::uint64_t s) {
    return kLeft + (std::log2(static_cast<double>(s)) - x0) / (x1 - x0) * pw;
  };
  auto Y = [&](double v) { return kTop + ph - v / ymax * ph; };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kW, kH, kW, kH);
  svg += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", kW, kH);
  svg += text(fmt::format("x=\"{:.1f}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\"", kW / 2),
              fitted_title(fmt::format("sbrdma bench {}: {} on ", collectives::op_name(o.op),
                                       ranks_and_groups(o, r.groups)),
                           topology_label(o),  // the part cut to fit, its name first
                           ", " + dtype_and_reduction(o)));
  // Axes, grid and ticks.
  svg +=
      fmt::format("<path d=\"M{:.1f} {:.1f} V{:.1f} H{:.1f}\" stroke=\"black\" fill=\"none\"/>\n",
                  kLeft, kTop, kTop + ph, kLeft + pw);
  for (double v = 0; v <= ymax + step / 2; v += step) {
    svg += fmt::format("<path d=\"M{:.1f} {:.1f} H{:.1f}\" stroke=\"#dddddd\"/>", kLeft, Y(v),
                       kLeft + pw) +
           text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\"", kLeft - 6, Y(v) + 4),
                fmt::format("{:.4g}", v));
  }
  // A tick at every power of 2, a label at every `every`-th (powers of 2^every), so that
  // labels keep kLabelGap apart on a wide range.
  const auto every = static_cast<long long>(std::max(1.0, std::ceil(kLabelGap * (x1 - x0) / pw)));
  for (double e = std::ceil(x0); e <= x1 + 1e-9; e += 1) {
    const auto s = static_cast<std::uint64_t>(std::llround(std::exp2(e)));
    svg += fmt::format("<path d=\"M{:.1f} {:.1f} v5\" stroke=\"black\"/>", X(s), kTop + ph);
    if (std::llround(e) % every != 0) {
      svg += "\n";
      continue;
    }
    svg +=
        text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\"", X(s), kTop + ph + 18),
             size_label(s));
  }
  svg +=
      text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\"", kLeft + pw / 2, kH - 16),
           "size (bytes)");
  svg += text(fmt::format("x=\"16\" y=\"{:.1f}\" text-anchor=\"middle\" "
                          "transform=\"rotate(-90 16 {:.1f})\"",
                          kTop + ph / 2, kTop + ph / 2),
              "busbw (GB/s, simulated)");
  // One line per requested algorithm, with its legend entry; then the markers, all after the
  // lines (a 2 px line would hide a 1.2 px point), each algorithm's over the earlier ones'.
  std::string markers;
  for (std::size_t a = 0; a < o.algorithms.size(); ++a) {
    const std::string_view color = kColors[a % std::size(kColors)];
    const std::string_view dashes = kDashes[a % std::size(kDashes)];
    const std::string stroke =
        fmt::format("stroke=\"{}\" stroke-width=\"2\"{}", color,
                    dashes.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dashes));
    const double radius = kMarkerRadius[a % std::size(kMarkerRadius)];
    std::string pts;
    for (const BenchRow& row : r.rows) {
      if (row.requested != o.algorithms[a]) continue;
      pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", X(row.size), Y(row.busbw));
      // Its tooltip names the size, the algorithm that ran (auto's choice) and the busbw.
      markers += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n",
          X(row.size), Y(row.busbw), radius, color,
          xml_escape(fmt::format("{} B: {}, busbw {:.2f} GB/s", row.size,
                                 collectives::algorithm_name(row.algorithm), row.busbw)));
    }
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" {}/>\n", pts, stroke);
    const double ly = kTop + 10 + 20 * static_cast<double>(a);
    svg += fmt::format("<path d=\"M{:.1f} {:.1f} h24\" {}/>", kLeft + pw + 16, ly, stroke) +
           text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\"", kLeft + pw + 46, ly + 4),
                collectives::algorithm_name(o.algorithms[a]));
  }
  svg += markers;
  svg += "</svg>\n";
  return svg;
}

}  // namespace sbrdma::platform
