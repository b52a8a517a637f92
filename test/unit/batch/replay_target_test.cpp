//===- replay_target_test.cpp - Which tests replay, as which program ------===//
#include "racepredict/batch/replay_target.h"

#include <gtest/gtest.h>

#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace racepredict::batch;
namespace fs = std::filesystem;

namespace {

/// A fresh directory for one test's files.
std::string tempDir() {
  char tmpl[] = "/tmp/rp-replay-target-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl), nullptr);
  return tmpl;
}

enum class Sym { Defined, Undefined, StringOnly };

/// A minimal ELF64 image: sections null, .dynsym (null symbol + one), and
/// its string table. `Undefined` makes the symbol a reference (as in a
/// library that calls the runtime); `StringOnly` keeps the name in the
/// string table but names no symbol with it.
std::string elfImage(Sym how) {
  const char strs[] = "\0__racepredict_init\0other\0";
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  Elf64_Sym syms[2]{};
  syms[1].st_name = how == Sym::StringOnly ? 20 : 1; // "other" : the entry
  syms[1].st_shndx = how == Sym::Undefined ? SHN_UNDEF : 1;
  size_t symOff = sizeof eh, strOff = symOff + sizeof syms;
  eh.e_shoff = strOff + sizeof strs;
  Elf64_Shdr sh[3]{};
  sh[1].sh_type = SHT_DYNSYM;
  sh[1].sh_offset = symOff;
  sh[1].sh_size = sizeof syms;
  sh[1].sh_link = 2;
  sh[1].sh_entsize = sizeof(Elf64_Sym);
  sh[2].sh_type = SHT_STRTAB;
  sh[2].sh_offset = strOff;
  sh[2].sh_size = sizeof strs;
  std::string img(reinterpret_cast<const char *>(&eh), sizeof eh);
  img.append(reinterpret_cast<const char *>(syms), sizeof syms);
  img.append(strs, sizeof strs);
  img.append(reinterpret_cast<const char *>(sh), sizeof sh);
  return img;
}

std::string writeFile(const std::string &path, const std::string &bytes,
                      bool executable = true) {
  std::ofstream(path, std::ios::binary) << bytes;
  if (executable)
    chmod(path.c_str(), 0755);
  return path;
}

} // namespace

TEST(ReplayTarget, PlainShellWords) {
  EXPECT_EQ(plainShellWords("/b/prog  --n=3\t-v x.txt"),
            (std::vector<std::string>{"/b/prog", "--n=3", "-v", "x.txt"}));
  EXPECT_EQ(plainShellWords("prog a=1"),
            (std::vector<std::string>{"prog", "a=1"}));
  for (const char *shell :
       {"A=1 prog", "prog > out", "a && b", "prog 'q'", "prog \"q\"",
        "prog $HOME", "~/prog", "prog *.c", "prog; other", "prog | cat",
        "(prog)", "prog `x`", "prog \\x", ""})
    EXPECT_TRUE(plainShellWords(shell).empty()) << shell;
}

TEST(ReplayTarget, InstrumentedMeansDefiningTheRuntimeEntry) {
  std::string d = tempDir();
  std::string why;
  EXPECT_TRUE(
      isInstrumentedProgram(writeFile(d + "/def", elfImage(Sym::Defined)), why))
      << why;
  EXPECT_FALSE(isInstrumentedProgram(
      writeFile(d + "/undef", elfImage(Sym::Undefined)), why));
  EXPECT_EQ(why, "does not contain the racepredict runtime (not built with "
                 "racepredict-cc, or stripped)");
  // The name in a string table is not enough (racepredict itself has it).
  EXPECT_FALSE(isInstrumentedProgram(
      writeFile(d + "/str", elfImage(Sym::StringOnly)), why));
  EXPECT_FALSE(isInstrumentedProgram(
      writeFile(d + "/script", "#!/bin/sh\n__racepredict_init\n"), why));
  EXPECT_EQ(why, "is not an ELF file (a script?)");
  EXPECT_FALSE(isInstrumentedProgram("/bin/true", why));
  EXPECT_FALSE(isInstrumentedProgram(d + "/missing", why));
  EXPECT_EQ(why, "cannot be read");
  // Cut or corrupt images are refused without reading past the end.
  std::string img = elfImage(Sym::Defined);
  EXPECT_FALSE(isInstrumentedProgram(
      writeFile(d + "/cut", img.substr(0, img.size() - 10)), why));
  std::string bad = img;
  reinterpret_cast<Elf64_Ehdr *>(bad.data())->e_shnum = 0xffff;
  EXPECT_FALSE(isInstrumentedProgram(writeFile(d + "/bad", bad), why));
  fs::remove_all(d);
}

TEST(ReplayTarget, OneInstrumentedProgramReplays) {
  std::string d = tempDir();
  fs::create_directories(d + "/bin");
  writeFile(d + "/bin/prog", elfImage(Sym::Defined));
  TestSpec s;
  s.name = "t";
  s.cwd = d;
  // CTest: the command as argv; relative names from the working directory.
  s.command = {"bin/prog", "--x"};
  ReplayTarget t = replayTarget(s);
  EXPECT_TRUE(t.ok()) << t.reason;
  EXPECT_EQ(t.argv, (std::vector<std::string>{"bin/prog", "--x"}));
  // A plain commands-file line: the program without the shell.
  s.command = {"/bin/sh", "-c", d + "/bin/prog 1 2"};
  t = replayTarget(s);
  EXPECT_TRUE(t.ok()) << t.reason;
  EXPECT_EQ(t.argv, (std::vector<std::string>{d + "/bin/prog", "1", "2"}));
  // A bare name: PATH from the test's environment.
  s.command = {"prog"};
  s.env = {"PATH=" + d + "/bin"};
  t = replayTarget(s);
  EXPECT_TRUE(t.ok()) << t.reason;
  EXPECT_EQ(t.argv, (std::vector<std::string>{"prog"}));
  fs::remove_all(d);
}

TEST(ReplayTarget, EverythingElseSaysWhy) {
  std::string d = tempDir();
  writeFile(d + "/prog", elfImage(Sym::Defined));
  TestSpec s;
  s.cwd = d;
  s.command = {"/bin/sh", "-c", "./prog && ./prog"};
  EXPECT_EQ(replayTarget(s).reason,
            "the test is a shell command line (`./prog && ./prog`), not one "
            "program");
  s.command = {"sh", "-c", "./prog"};
  EXPECT_TRUE(replayTarget(s).ok()) << replayTarget(s).reason;
  s.command = {"/bin/true"};
  EXPECT_EQ(replayTarget(s).reason,
            "the test command runs '/bin/true', which does not contain the "
            "racepredict runtime (not built with racepredict-cc, or "
            "stripped); it may start several instrumented programs");
  s.command = {"./nope"};
  EXPECT_EQ(replayTarget(s).reason, "cannot find the program './nope'");
  s.command = {};
  EXPECT_EQ(replayTarget(s).reason, "the test has no command");
  fs::remove_all(d);
}
