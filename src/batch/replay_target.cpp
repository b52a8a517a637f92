//===- batch/replay_target.cpp - Is the test command one instrumented program?
//
#include "racepredict/batch/replay_target.h"

#include "racepredict/batch/process.h"

#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace racepredict::batch {

namespace fs = std::filesystem;

namespace {

/// The runtime's start-up entry point: every racepredict-cc module's
/// constructor calls it, and the runtime linked into the executable defines
/// it — and exports it, with the other hooks, in the dynamic symbol table,
/// which `strip` keeps.
constexpr const char kRuntimeEntry[] = "__racepredict_init";

/// Whether an ELF image defines `name` in a symbol table (.dynsym or
/// .symtab). Every offset is bounds-checked: the file may be anything.
template <typename Ehdr, typename Shdr, typename Sym>
bool definesSymbol(const char *data, size_t size, const char *name) {
  if (size < sizeof(Ehdr))
    return false;
  Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (eh.e_shentsize != sizeof(Shdr) || eh.e_shoff > size ||
      eh.e_shnum > (size - eh.e_shoff) / sizeof(Shdr))
    return false;
  auto section = [&](size_t i) {
    Shdr sh;
    std::memcpy(&sh, data + eh.e_shoff + i * sizeof(Shdr), sizeof sh);
    return sh;
  };
  size_t len = std::strlen(name);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Shdr sh = section(i);
    if ((sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
        sh.sh_link >= eh.e_shnum || sh.sh_offset > size ||
        sh.sh_size > size - sh.sh_offset)
      continue;
    Shdr str = section(sh.sh_link);
    if (str.sh_offset > size || str.sh_size > size - str.sh_offset)
      continue;
    const char *strs = data + str.sh_offset;
    for (size_t k = 0; k < sh.sh_size / sizeof(Sym); ++k) {
      Sym sym;
      std::memcpy(&sym, data + sh.sh_offset + k * sizeof(Sym), sizeof sym);
      if (sym.st_shndx == SHN_UNDEF || sym.st_name >= str.sh_size ||
          str.sh_size - sym.st_name <= len)
        continue;
      if (std::memcmp(strs + sym.st_name, name, len + 1) == 0)
        return true;
    }
  }
  return false;
}

bool plainChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || std::strchr("_./,+:@%=-", c) != nullptr;
}

bool isShell(const std::string &program) {
  std::string base = fs::path(program).filename().string();
  return base == "sh" || base == "bash" || base == "dash" || base == "zsh" ||
         base == "ksh";
}

/// argv[0] as execvp would find it: relative to `cwd` when it has a slash,
/// else the first executable on the test's PATH.
std::string resolve(const std::string &program, const std::string &cwd,
                    const std::vector<std::string> &env) {
  auto executable = [](const fs::path &p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) {
    fs::path p = program;
    if (p.is_relative())
      p = fs::path(cwd.empty() ? fs::current_path().string() : cwd) / p;
    return executable(p) ? p.lexically_normal().string() : "";
  }
  std::string dirs = envValue(env, "PATH");
  if (dirs.empty())
    dirs = "/usr/bin:/bin";
  for (size_t b = 0; b <= dirs.size();) {
    size_t e = dirs.find(':', b);
    if (e == std::string::npos)
      e = dirs.size();
    fs::path dir = e > b ? dirs.substr(b, e - b) : ".";
    if (dir.is_relative())
      dir = fs::path(cwd.empty() ? fs::current_path().string() : cwd) / dir;
    if (executable(dir / program))
      return (dir / program).lexically_normal().string();
    b = e + 1;
  }
  return "";
}

} // namespace

std::vector<std::string> plainShellWords(const std::string &line) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty())
        words.push_back(std::move(cur));
      cur.clear();
    } else if (plainChar(c)) {
      cur += c;
    } else {
      return {};
    }
  }
  if (!cur.empty())
    words.push_back(std::move(cur));
  if (!words.empty() && words[0].find('=') != std::string::npos)
    return {}; // VAR=value prog: an assignment for the shell
  return words;
}

bool isInstrumentedProgram(const std::string &path, std::string &why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = "cannot be read";
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 4) {
    close(fd);
    why = "is not an ELF file";
    return false;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    why = "cannot be read";
    return false;
  }
  const char *data = static_cast<const char *>(map);
  bool elf = size > EI_CLASS && std::memcmp(data, ELFMAG, SELFMAG) == 0;
  bool marker = false;
  if (elf && data[EI_CLASS] == ELFCLASS64)
    marker = definesSymbol<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym>(data, size,
                                                              kRuntimeEntry);
  else if (elf && data[EI_CLASS] == ELFCLASS32)
    marker = definesSymbol<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym>(data, size,
                                                              kRuntimeEntry);
  munmap(map, size);
  if (!elf)
    why = "is not an ELF file (a script?)";
  else if (!marker)
    why = "does not contain the racepredict runtime (not built with "
          "racepredict-cc, or stripped)";
  return marker;
}

ReplayTarget replayTarget(const TestSpec &spec) {
  ReplayTarget t;
  t.argv = spec.command;
  if (t.argv.empty()) {
    t.reason = "the test has no command";
    return t;
  }
  if (t.argv.size() == 3 && isShell(t.argv[0]) && t.argv[1] == "-c") {
    std::vector<std::string> words = plainShellWords(t.argv[2]);
    if (words.empty()) {
      t.reason = "the test is a shell command line (`" + t.argv[2] +
                 "`), not one program";
      return t;
    }
    t.argv = std::move(words);
  }
  std::vector<std::string> env = environmentWith(spec.env);
  std::string path = resolve(t.argv[0], spec.cwd, env);
  if (path.empty()) {
    t.reason = "cannot find the program '" + t.argv[0] + "'";
    return t;
  }
  std::string why;
  if (!isInstrumentedProgram(path, why))
    t.reason = "the test command runs '" + path + "', which " + why +
               "; it may start several instrumented programs";
  return t;
}

} // namespace racepredict::batch
