#include "temporary_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace heed::convert {

namespace {

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

// The temporary file of the write under way, for the signal handler. Async-signal-safe: the
// handler only reads this buffer, unlinks, restores the default action and re-raises.
char g_temp_path[PATH_MAX + 1];
volatile sig_atomic_t g_temp_active = 0;
struct sigaction g_previous[3];

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_active) ::unlink(g_temp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered when the handler returns: the process ends as the signal meant
}

// From here on the catchable signals remove `path` before the process ends. A signal the process
// was started ignoring (nohup, a background job's SIGINT) stays ignored.
bool arm_signal_cleanup(const std::string& path) {
  if (path.size() > PATH_MAX) return false;
  std::memcpy(g_temp_path, path.c_str(), path.size() + 1);
  g_temp_active = 1;
  struct sigaction action {};
  action.sa_handler = remove_temp_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) {
    ::sigaction(kSignals[i], nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler != SIG_IGN) ::sigaction(kSignals[i], &action, nullptr);
  }
  return true;
}

void disarm_signal_cleanup() {
  for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_temp_active = 0;
}

// Blocks the catchable signals in this thread while alive, so none lands between creating the
// temporary file and arming its removal (one that arrives meanwhile is delivered, and cleans up,
// when this ends). A signal taken by another thread in that window ends the process the default
// way; the file is then a leftover for the next write.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

// A leftover is removed only when its lock can be taken: a live writer holds it until its rename.
void remove_if_unlocked(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(path.c_str());
  ::close(fd);
}

Status os_error(const std::string& path, const char* what) {
  return io_error(path + ": cannot " + what + ": " + std::strerror(errno));
}

}  // namespace

void remove_stale_temporaries(const std::string& dir, const std::string& base) {
  const std::string prefix = "." + base + ".tmp-";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0) {
      remove_if_unlocked((dir == "/" ? "" : dir) + "/" + name);
    }
  }
  ::closedir(d);
}

Status TemporaryFile::create(const std::string& dir, const std::string& base, const std::string& output) {
  remove_stale_temporaries(dir, base);
  path_ = (dir == "/" ? "" : dir) + "/." + base + ".tmp-XXXXXX";
  SignalsBlocked blocked;
  fd_ = ::mkstemp(path_.data());
  if (fd_ < 0) {
    const int err = errno;
    path_.clear();  // whatever mkstemp left in the name is not ours
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return io_error(output + ": cannot write: folder '" + dir + "' does not exist");
    return io_error(output + ": cannot create a file in '" + dir + "': " + std::strerror(err));
  }
  armed_ = arm_signal_cleanup(path_);
  // A fresh file nobody else has open: the lock is free. Where flock is unsupported the leftover
  // check cannot take it either, so the file is simply kept from removal.
  ::flock(fd_, LOCK_EX | LOCK_NB);
  lock_fd_ = ::dup(fd_);
  if (lock_fd_ < 0) return os_error(output, "duplicate a file descriptor");
  return Status::success();
}

Status TemporaryFile::close(const std::string& output) {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return os_error(output, "close");
  return Status::success();
}

Status TemporaryFile::rename_to(const std::string& target, const std::string& output) {
  if (::rename(path_.c_str(), target.c_str()) != 0) {
    return io_error(output + ": cannot rename the temporary file into place: " + std::strerror(errno));
  }
  path_.clear();  // renamed: nothing of ours to remove any more
  return Status::success();
}

TemporaryFile::~TemporaryFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
  if (lock_fd_ >= 0) ::close(lock_fd_);  // the lock goes with the last descriptor
  if (armed_) disarm_signal_cleanup();
}

}  // namespace heed::convert
