/*
 * judge-spawner: the tiny process every sandbox starts programs from.
 *
 * Why not fork from the Python agent: a child's ru_maxrss keeps the high-water mark of the
 * address space it was forked from, so every program would report the agent's memory, and
 * forking a Python process costs copy-on-write faults. This static binary is a few hundred KB.
 *
 * Protocol (SOCK_SEQPACKET on fd 0, one message per request, file descriptors as SCM_RIGHTS):
 *   request  "spawn\0CPU_S\0FSIZE\0STACK\0NOFILE\0ARGC\0ARG...\0ENVC\0ENV...\0" + N fds,
 *            installed in the child as fds 0..N-1; a limit of -1 means unlimited.
 *            "ping\0NONCE\0"
 *   replies  {"op":"spawned","pid":P}   then, when it ends,
 *            {"op":"exit","pid":P,"status":S,"cpu_ms":F,"maxrss_kb":K}
 *            {"op":"error","message":"..."}   (the program could not be started)
 *            {"op":"pong","nonce":"..."}
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MESSAGE 65536
#define MAX_FDS 16
#define MAX_ARGS 256

static char message[MAX_MESSAGE + 1];

static void reply(const char *text) { send(0, text, strlen(text), MSG_NOSIGNAL); }

static long long number(const char *text) { return strtoll(text, NULL, 10); }

static void set_limit(int resource, long long value) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = value < 0 ? RLIM_INFINITY : (rlim_t)value;
    if (resource == RLIMIT_CPU && value >= 0) limit.rlim_max = (rlim_t)value + 1;
    setrlimit(resource, &limit);
}

static void be_the_oom_killers_first_choice(void) {
    int adj = open("/proc/self/oom_score_adj", O_WRONLY);
    if (adj >= 0) {
        if (write(adj, "1000", 4) < 0) { /* the agent's accounting still stops the program */ }
        close(adj);
    }
}

static void child(char **fields, int *fds, int nfds, int error_pipe) {
    char **argv = NULL, **envp = NULL;
    int argc = (int)number(fields[5]);
    argv = fields + 6;
    int envc = (int)number(fields[6 + argc]);
    envp = fields + 7 + argc;
    argv[argc] = NULL; /* the ENVC field, no longer needed */
    envp[envc] = NULL;

    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
    int high[MAX_FDS];
    for (int i = 0; i < nfds; i++) high[i] = fcntl(fds[i], F_DUPFD, 64);
    for (int i = 0; i < nfds; i++) dup2(high[i], i);
    error_pipe = fcntl(error_pipe, F_DUPFD_CLOEXEC, 1024);
    syscall(SYS_close_range, nfds, 1023, 0);
    syscall(SYS_close_range, 1025, ~0U, 0);
    set_limit(RLIMIT_CPU, number(fields[1]));
    set_limit(RLIMIT_FSIZE, number(fields[2]));
    set_limit(RLIMIT_STACK, number(fields[3]));
    set_limit(RLIMIT_NOFILE, number(fields[4]));
    set_limit(RLIMIT_CORE, 0);
    if (chdir("/work") != 0) { /* exec still reports a missing program */ }
    execve(argv[0], argv, envp);
    char text[512];
    int length = snprintf(text, sizeof text, "cannot start %s: %s", argv[0], strerror(errno));
    if (write(error_pipe, text, (size_t)length) < 0) { /* nothing more to do */ }
    _exit(127);
}

static void spawn(char **fields, int nfields, int *fds, int nfds) {
    char text[1024];
    if (nfields < 7 || number(fields[5]) < 1 || 7 + number(fields[5]) > nfields ||
        7 + number(fields[5]) + number(fields[6 + number(fields[5])]) > nfields) {
        reply("{\"op\":\"error\",\"message\":\"malformed spawn request\"}");
        return;
    }
    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) {
        reply("{\"op\":\"error\",\"message\":\"pipe failed\"}");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(error_pipe[0]);
        child(fields, fds, nfds, error_pipe[1]);
    }
    close(error_pipe[1]);
    for (int i = 0; i < nfds; i++) close(fds[i]);
    if (pid < 0) {
        close(error_pipe[0]);
        snprintf(text, sizeof text, "{\"op\":\"error\",\"message\":\"fork failed: %s\"}", strerror(errno));
        reply(text);
        return;
    }
    char failure[512];
    ssize_t got = read(error_pipe[0], failure, sizeof failure - 1);
    close(error_pipe[0]);
    if (got > 0) {
        failure[got] = 0;
        for (char *c = failure; *c; c++) if (*c == '"' || *c == '\\' || *c < 32) *c = ' ';
        waitpid(pid, NULL, 0);
        snprintf(text, sizeof text, "{\"op\":\"error\",\"message\":\"%s\"}", failure);
        reply(text);
        return;
    }
    snprintf(text, sizeof text, "{\"op\":\"spawned\",\"pid\":%d}", pid);
    reply(text);
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
    double cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
                    (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
    snprintf(text, sizeof text,
             "{\"op\":\"exit\",\"pid\":%d,\"status\":%d,\"cpu_ms\":%.3f,\"maxrss_kb\":%ld}", pid,
             status, cpu_ms, usage.ru_maxrss);
    reply(text);
}

int main(void) {
    /* The programs are the OOM killer's first choice at the container's cap, never the agent:
     * every child is born at 1000 (the agent's watch takes a job process below it, under memory
     * pressure, for a program that lowered it). Written while the file is still this process's:
     * a non-dumpable process's /proc entries are root's. */
    be_the_oom_killers_first_choice();
    /* Not dumpable: programs of the same uid cannot ptrace or read this process. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD) signal(sig, SIG_IGN);
    reply("{\"op\":\"ready\"}");
    for (;;) {
        char control[CMSG_SPACE(sizeof(int) * MAX_FDS)];
        struct iovec io = {.iov_base = message, .iov_len = MAX_MESSAGE};
        struct msghdr header = {0};
        header.msg_iov = &io;
        header.msg_iovlen = 1;
        header.msg_control = control;
        header.msg_controllen = sizeof control;
        ssize_t size = recvmsg(0, &header, MSG_CMSG_CLOEXEC);
        if (size <= 0) {
            if (size < 0 && errno == EINTR) continue;
            return 0;
        }
        message[size] = 0;
        int fds[MAX_FDS], nfds = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&header); c; c = CMSG_NXTHDR(&header, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int i = 0; i < count && nfds < MAX_FDS; i++)
                    memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            }
        }
        char *fields[MAX_ARGS * 2 + 8];
        int nfields = 0;
        for (char *p = message; p < message + size && nfields < (int)(sizeof fields / sizeof *fields) - 1;) {
            fields[nfields++] = p;
            p += strlen(p) + 1;
        }
        fields[nfields] = NULL;
        if (nfields >= 2 && strcmp(fields[0], "ping") == 0) {
            char text[256];
            snprintf(text, sizeof text, "{\"op\":\"pong\",\"nonce\":\"%.64s\"}", fields[1]);
            reply(text);
        } else if (nfields >= 1 && strcmp(fields[0], "spawn") == 0) {
            spawn(fields, nfields, fds, nfds);
            continue;
        } else {
            reply("{\"op\":\"error\",\"message\":\"unknown request\"}");
        }
        for (int i = 0; i < nfds; i++) close(fds[i]);
    }
}
