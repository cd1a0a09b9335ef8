// Helper tools and the recorded program start with an argument vector, never through a shell:
// arguments reach the program byte for byte, and a program that cannot run is a clear error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "racepred/recording/launch.hpp"
#include "racepred/recording/spawn.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::recording {
namespace RACEPRED_TEST_FILE {

TEST(RecordingSpawn, ArgumentsReachTheProgramAsTheyAre) {
  const std::vector<std::string> args = {"/bin/echo", "two words", "it's",  "\"quoted\"",
                                         "$HOME",     "`id`",      "a;b|c", "*"};
  const Captured c = run_capture(args);
  EXPECT_EQ(c.out, "two words it's \"quoted\" $HOME `id` a;b|c *\n");
  ASSERT_TRUE(WIFEXITED(c.status));
  EXPECT_EQ(WEXITSTATUS(c.status), 0);
}

TEST(RecordingSpawn, InputComesFromAPrivateFileAndTheStatusIsKept) {
  EXPECT_EQ(run_capture({"cat"}, "line one\n$PATH\n").out, "line one\n$PATH\n");
  const Captured f = run_capture({"false"});
  ASSERT_TRUE(WIFEXITED(f.status));
  EXPECT_EQ(WEXITSTATUS(f.status), 1);
}

TEST(RecordingSpawn, AMissingProgramIsAClearError) {
  try {
    run_capture({"/nonexistent/racepred-no-such-tool", "x"});
    FAIL() << "no error";
  } catch (const SpawnError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot run /nonexistent/racepred-no-such-tool: No such file or directory");
  }
  EXPECT_THROW(run_capture({"racepred-no-such-tool-on-path"}), SpawnError);
  EXPECT_THROW(spawn({}), SpawnError);
  EXPECT_EQ(find_program("racepred-no-such-tool-on-path"), "");
  EXPECT_EQ(find_program("/x/y"), "/x/y");
  EXPECT_NE(find_program("cat"), "");
}

TEST(RecordingSpawn, EnvironmentIsSetForTheChildOnly) {
  const int out = private_file("");
  SpawnOptions o;
  o.env = {{"RACEPRED_SPAWN_TEST", "a b $c"}, {"PATH", "/usr/bin:/bin"}};
  o.stdout_fd = out;
  const int status = wait_for(spawn({"/usr/bin/env"}, o));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::string text(1 << 16, '\0');
  const ssize_t n = ::pread(out, text.data(), text.size(), 0);
  ::close(out);
  ASSERT_GT(n, 0);
  text.resize(static_cast<size_t>(n));
  // The lines of the child's environment: ours, with the two variables set, PATH once.
  std::vector<std::string> lines;
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
  }
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "RACEPRED_SPAWN_TEST=a b $c"), 1);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.rfind("PATH=", 0) == 0; }),
            1);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "PATH=/usr/bin:/bin"), 1);
  EXPECT_EQ(getenv("RACEPRED_SPAWN_TEST"), nullptr);
}

TEST(RecordingSpawn, TemporaryFilesArePrivate) {
  const int fd = private_file("secret");
  char link[64], target[PATH_MAX] = {};
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  ASSERT_GT(n, 0);
  const std::string where(target, static_cast<size_t>(n));
  // A memfd, or an unlinked file: nothing another process could open by name.
  EXPECT_TRUE(where.rfind("/memfd:", 0) == 0 || where.ends_with(" (deleted)")) << where;
  char buf[8] = {};
  EXPECT_EQ(::read(fd, buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf), "secret");
  ::close(fd);
}

TEST(RecordingLaunch, AProgramThatCannotRunIsAClearError) {
  RecordRequest r;
  r.command = {"/nonexistent/prog with space", "arg"};
  r.output = ::testing::TempDir() + "rp_launch_" + std::to_string(::getpid()) + ".rpt";
  try {
    record_program(r);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "racepred: error: cannot run /nonexistent/prog with space: No such file or directory");
  }
  r.command = {"/bin/true"};  // runs, but is not instrumented
  try {
    record_program(r);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/bin/true wrote no recording"), std::string::npos);
  }
}

TEST(RecordingLaunch, ChildTracesAreNamedByPid) {
  EXPECT_EQ(child_output("run.rpt", 1234), "run.1234.rpt");
  EXPECT_EQ(child_output("dir/run", 7), "dir/run.7");
  EXPECT_EQ(child_output("t.std", 7), "t.7.std");
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred::recording
