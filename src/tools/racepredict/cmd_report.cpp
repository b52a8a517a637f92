//===- tools/racepredict/cmd_report.cpp - `racepredict report INPUT` ------===//
//
// Turns a finished analysis into the HTML page (report/html_report.h):
// INPUT is a JSON report of `analyze` or `run` (its "trace" names the trace
// the events belong to: `run --trace-out` keeps it), or a trace, which is
// analysed first (races and deadlocks, the default options).
//
#include "analysis_pipeline.h"
#include "commands.h"

#include "racepredict/report/html_report.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct ReportArgs {
  std::string input;
  std::string html;
};

/// A JSON report starts with `{`; a text trace never does.
bool isJsonReport(const std::string &path) {
  std::ifstream in(path);
  char c = 0;
  while (in.get(c) && std::isspace(static_cast<unsigned char>(c)))
    ;
  return in && c == '{';
}

int fail(const std::string &msg) {
  std::cerr << "racepredict report: " << msg << "\n";
  return kExitInput;
}

int runReport(const ReportArgs &a) {
  report::ReportContext ctx;
  std::unique_ptr<trace::Trace> t;
  std::vector<report::HtmlFinding> findings;
  std::ifstream probe(a.input);
  if (!probe)
    return fail("cannot read '" + a.input + "'");
  if (isJsonReport(a.input)) {
    nlohmann::json j;
    try {
      std::ifstream in(a.input);
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
      return fail(a.input + ": not a JSON report: " + e.what());
    }
    ctx.tracePath = j.value("trace", "");
    if (ctx.tracePath.empty())
      return fail(a.input + ": the report names no trace");
    auto tr = trace::readTraceFile(ctx.tracePath);
    if (!tr)
      return fail(tr.error().message + " (the trace of " + a.input +
                  "; `run --trace-out FILE` keeps it)");
    t = std::make_unique<trace::Trace>(std::move(*tr));
    auto f = report::htmlFindingsFromJson(*t, j);
    if (!f)
      return fail(a.input + ": " + f.error().message);
    findings = std::move(*f);
  } else {
    AnalysisOptions o;
    o.trace = a.input;
    o.races = true;
    o.deadlocks = true;
    auto res = runAnalysis(o);
    if (!res)
      return fail(res.error().message);
    ctx.tracePath = a.input;
    t = std::move(res->trace);
    findings = report::htmlFindings(*t, res->races, &res->deadlocks);
  }
  std::ofstream out(a.html);
  if (!out)
    return fail("cannot write '" + a.html + "'");
  report::writeHtmlReport(*t, findings, ctx, out);
  out.close();
  if (!out)
    return fail("could not write all of '" + a.html + "'");
  std::cerr << "racepredict report: " << findings.size() << " finding"
            << (findings.size() == 1 ? "" : "s") << " written to " << a.html
            << "\n";
  return findings.empty() ? kExitClean : kExitFound;
}

} // namespace

void addReportCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App *cmd = app.add_subcommand(
      "report", "Write the HTML view of a JSON report (of analyze or run; "
                "its trace must still exist) or of a trace (analysed for "
                "races and deadlocks first)");
  cmd->add_option("input", args->input, "JSON report or trace")->required();
  cmd->add_option("--html", args->html, "Write the HTML page here")->required();
  cmd->callback([args, &exitCode]() { exitCode = runReport(*args); });
}

} // namespace racepredict::tool
