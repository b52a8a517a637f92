//===- report/html_report.cpp - The self-contained HTML page --------------===//
#include "racepredict/report/html_report.h"

#include <ostream>

namespace racepredict::report {

namespace {

#include "html_assets.inc"

/// Text for an HTML element's content.
std::string escaped(const std::string &s) {
  std::string out;
  for (char c : s)
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    default:
      out += c;
    }
  return out;
}

} // namespace

void writeHtmlReport(const trace::Trace &t,
                     const std::vector<HtmlFinding> &findings,
                     const ReportContext &ctx, std::ostream &out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
         "charset=\"utf-8\">\n"
      << "<title>racepredict: " << findings.size() << " finding"
      << (findings.size() == 1 ? "" : "s") << " in " << escaped(ctx.tracePath)
      << "</title>\n<style>\n"
      << kWitnessViewCss << "</style>\n</head>\n<body>\n"
      << "<ul id=\"findings\"></ul>\n<main id=\"finding\"></main>\n"
      << "<div id=\"detail\"></div>\n"
      << "<script type=\"application/json\" id=\"racepredict-data\">";
  writeHtmlModel(t, findings, ctx, out);
  out << "</script>\n<script>\n"
      << kWitnessViewJs << "</script>\n</body>\n</html>\n";
}

} // namespace racepredict::report
