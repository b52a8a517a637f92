//===- batch/test_spec.cpp - Test lists from CTest, command files, traces -===//
#include "racepredict/batch/test_spec.h"

#include "racepredict/batch/process.h"
#include "racepredict/support/file_io.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <unistd.h>

namespace racepredict::batch {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string fileSafeName(const std::string &name) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                 c == '_'
             ? c
             : '_';
  if (s.empty() || s[0] == '.')
    s = "_" + s;
  return s;
}

Expected<std::vector<TestSpec>> parseCTestJson(const nlohmann::json &j,
                                               const std::string &origin) {
  if (!j.is_object() || !j.contains("tests") || !j["tests"].is_array())
    return Error{origin + ": no \"tests\" array (is this `ctest "
                          "--show-only=json-v1` output?)"};
  std::vector<TestSpec> out;
  for (const auto &t : j["tests"]) {
    TestSpec s;
    if (!t.contains("name") || !t["name"].is_string())
      return Error{origin + ": a test has no name"};
    s.name = t["name"].get<std::string>();
    if (t.contains("command") && t["command"].is_array())
      for (const auto &a : t["command"])
        s.command.push_back(a.get<std::string>());
    if (t.contains("properties") && t["properties"].is_array())
      for (const auto &p : t["properties"]) {
        std::string name = p.value("name", "");
        const auto &v = p.contains("value") ? p["value"] : nlohmann::json();
        if (name == "WORKING_DIRECTORY" && v.is_string())
          s.cwd = v.get<std::string>();
        else if (name == "ENVIRONMENT" && v.is_array())
          for (const auto &e : v)
            s.env.push_back(e.get<std::string>());
        else if (name == "DISABLED" && v.is_boolean() && v.get<bool>())
          s.skipReason = "disabled in CTest (DISABLED property)";
      }
    if (s.command.empty() && s.skipReason.empty())
      s.skipReason = "CTest has no command for it (executable not built?)";
    out.push_back(std::move(s));
  }
  return out;
}

Expected<std::vector<TestSpec>> discoverCTest(const std::string &buildDir) {
  if (!fs::is_directory(buildDir))
    return Error{"--ctest: '" + buildDir + "' is not a directory"};
  if (!fs::exists(fs::path(buildDir) / "CTestTestfile.cmake"))
    return Error{"--ctest: '" + buildDir +
                 "' has no CTestTestfile.cmake (not a CTest build directory; "
                 "configure it with enable_testing())"};
  std::string out =
      (fs::temp_directory_path() /
       ("racepredict-ctest-" + std::to_string(getpid()) + ".json"))
          .string();
  ProcessSpec p;
  p.argv = {"ctest", "--show-only=json-v1"};
  p.cwd = buildDir;
  p.env = environmentWith({});
  p.outputPath = out;
  p.deadline = Clock::now() + std::chrono::seconds(120);
  ProcessResult r = runProcess(p);
  std::string text = fileTail(out, 64 << 20);
  fs::remove(out);
  if (!r.ok())
    return Error{"--ctest: `ctest --show-only=json-v1` in '" + buildDir +
                 "' failed (" + r.describe() + "): " + text.substr(0, 500)};
  // ctest may print warnings before the JSON object.
  size_t brace = text.find('{');
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(
        text.substr(brace == std::string::npos ? 0 : brace));
  } catch (const nlohmann::json::parse_error &e) {
    return Error{"--ctest: cannot parse the output of `ctest "
                 "--show-only=json-v1` in '" +
                 buildDir + "': " + e.what()};
  }
  return parseCTestJson(j, "ctest --show-only=json-v1 in " + buildDir);
}

Expected<std::vector<TestSpec>> parseCommandsFile(const std::string &path) {
  auto opened = openInput(path, "commands file", std::ios::in);
  if (!opened)
    return opened.error();
  std::ifstream &in = *opened;
  std::string dir = fs::absolute(path).parent_path().string();
  std::vector<TestSpec> out;
  std::map<std::string, int> seen;
  std::string line;
  size_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#')
      continue;
    size_t e = line.find_last_not_of(" \t\r");
    line = line.substr(b, e - b + 1);
    std::string where = path + ":" + std::to_string(lineNo) + ": ";
    TestSpec s;
    s.cwd = dir;
    if (line[0] == '[') {
      size_t close = line.find(']');
      if (close == std::string::npos)
        return Error{where + "'[' without ']' (expected [NAME] COMMAND)"};
      s.name = line.substr(1, close - 1);
      line = line.substr(close + 1);
      size_t c = line.find_first_not_of(" \t");
      line = c == std::string::npos ? "" : line.substr(c);
      if (s.name.empty())
        return Error{where + "empty test name in '[]'"};
      if (line.empty())
        return Error{where + "test '" + s.name + "' has no command"};
      if (seen.count(s.name))
        return Error{where + "test name '" + s.name + "' is used twice"};
      seen[s.name] = 1;
    } else {
      std::string prog = line.substr(0, line.find_first_of(" \t"));
      std::string base = fs::path(prog).filename().string();
      int n = ++seen[base];
      s.name = n == 1 ? base : base + "#" + std::to_string(n);
    }
    s.command = {"/bin/sh", "-c", line};
    out.push_back(std::move(s));
  }
  if (out.empty())
    return Error{path + ": no commands (one per line: [NAME] COMMAND)"};
  return out;
}

Expected<std::vector<TestSpec>> listTraceDir(const std::string &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{"--traces: '" + dir + "' is not a directory"};
  std::vector<std::string> files;
  for (const auto &e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    auto endsWith = [&](const std::string &suf) {
      return n.size() > suf.size() &&
             n.compare(n.size() - suf.size(), suf.size(), suf) == 0;
    };
    if (e.is_regular_file() &&
        (endsWith(".rptrace") || endsWith(".rpt.txt") || endsWith(".std")))
      files.push_back(e.path().string());
  }
  if (ec)
    return Error{"--traces: cannot list '" + dir + "': " + ec.message()};
  if (files.empty())
    return Error{"--traces: no trace files (*.rptrace, *.rpt.txt, *.std) in '" +
                 dir + "'"};
  std::sort(files.begin(), files.end());
  std::vector<TestSpec> out;
  for (const auto &f : files) {
    TestSpec s;
    s.name = fs::path(f).filename().string();
    s.trace = fs::absolute(f).string();
    out.push_back(std::move(s));
  }
  return out;
}

Expected<std::vector<TestSpec>> filterTests(std::vector<TestSpec> tests,
                                            const std::string &include,
                                            const std::string &exclude) {
  std::regex in, ex;
  try {
    if (!include.empty())
      in = std::regex(include);
    if (!exclude.empty())
      ex = std::regex(exclude);
  } catch (const std::regex_error &e) {
    return Error{"bad test name regex: " + std::string(e.what())};
  }
  std::vector<TestSpec> out;
  for (auto &t : tests)
    if ((include.empty() || std::regex_search(t.name, in)) &&
        (exclude.empty() || !std::regex_search(t.name, ex)))
      out.push_back(std::move(t));
  return out;
}

json specJson(const TestSpec &s) {
  json j{{"name", s.name}};
  if (!s.command.empty())
    j["command"] = s.command;
  if (!s.cwd.empty())
    j["cwd"] = s.cwd;
  if (!s.env.empty())
    j["env"] = s.env;
  if (!s.trace.empty())
    j["trace"] = s.trace;
  if (!s.skipReason.empty())
    j["skip_reason"] = s.skipReason;
  return j;
}

Expected<TestSpec> specFromJson(const nlohmann::json &j) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    return Error{"a test entry has no \"name\" string"};
  TestSpec s;
  try {
    s.name = j["name"].get<std::string>();
    s.command = j.value("command", std::vector<std::string>{});
    s.cwd = j.value("cwd", "");
    s.env = j.value("env", std::vector<std::string>{});
    s.trace = j.value("trace", "");
    s.skipReason = j.value("skip_reason", "");
  } catch (const nlohmann::json::exception &e) {
    return Error{"test '" + s.name + "': " + e.what()};
  }
  return s;
}

} // namespace racepredict::batch
