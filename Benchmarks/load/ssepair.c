/* Paired SSE fan-out client: two servers, N idle streams each, broadcasts taken in turn.
 *
 * usage: ssepair <N> <broadcasts> <idle_s> <gap_ms> <port_a> <pid_a> <port_b> <pid_b>
 *
 * It measures what baseline/sseload.c measures (the time from just before the POST /send is
 * written until the last of the N streams holds the event's "seq=K;" marker), but both servers
 * are up at once and their broadcasts alternate A B B A A B ..., so that whatever slows this
 * shared machine down for a while (another tenant, the hypervisor taking a core away) falls on
 * both servers alike instead of on whichever one happened to be running. One process per
 * server holds its N client sockets (the open-file limit here is 20,000 a process); the parent
 * hands a turn to one child at a time over a pipe, and only that child's server is busy.
 *
 * Output: one "JSON {...}" line per server, A first, with every broadcast's time (-1 for one that
 * had not reached every stream after 10 s; "missed" counts those) and the share of CPU time the
 * hypervisor stole while that server's broadcasts ran ("steal_pct", from /proc/stat). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PIPE_TAG 0xFFFFFFFEu
#define POST_TAG 0xFFFFFFFFu

struct stream { int fd; int sent; int ready; long long maxseq; int counted; char tail[32]; int tail_len; };

/* One side: a server and the streams this process holds to it. */
static struct stream *streams;
static int count, port, server_pid, epoll_fd, command_fd;
static long long target;
static int got, turn = -1;
static double last_at;
static char buffer[65536];

static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static void die (const char *what) { fprintf (stderr, "ssepair (port %d): %s: %s\n", port, what, strerror (errno)); exit (1); }

/* The server's CPU seconds (user + system) and resident kB, from /proc. */
static void server_usage (double *cpu_seconds, long *rss_kb)
{
  char path[64], line[4096];
  *cpu_seconds = -1; *rss_kb = -1;
  snprintf (path, sizeof path, "/proc/%d/stat", server_pid);
  FILE *f = fopen (path, "r");
  if (f) {
    if (fgets (line, sizeof line, f)) {
      unsigned long user = 0, system = 0;
      char *fields = strrchr (line, ')');
      if (fields && sscanf (fields + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) == 2)
        *cpu_seconds = (double) (user + system) / sysconf (_SC_CLK_TCK);
    }
    fclose (f);
  }
  snprintf (path, sizeof path, "/proc/%d/status", server_pid);
  f = fopen (path, "r");
  if (f) { while (fgets (line, sizeof line, f)) sscanf (line, "VmRSS: %ld", rss_kb); fclose (f); }
}

/* Jiffies stolen by the hypervisor and all jiffies, summed over every CPU. */
static void machine_steal (unsigned long long *stolen, unsigned long long *total)
{
  unsigned long long v[8] = { 0 };
  *stolen = *total = 0;
  FILE *f = fopen ("/proc/stat", "r");
  if (!f) return;
  if (fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
    *stolen = v[7];
    for (int i = 0; i < 8; i++) *total += v[i];
  }
  fclose (f);
}

/* A connection to the server on 127.0.0.1. A stream's connects without waiting (TCP_NODELAY, as
 * sseload's); a request's waits until it is connected and is then made non-blocking for epoll. */
static int connect_to_server (int is_stream, const char *what)
{
  int fd = socket (AF_INET, SOCK_STREAM | (is_stream ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) die ("socket");
  if (is_stream) { int one = 1; setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }
  struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons (port) };
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (struct sockaddr *) &address, sizeof address) < 0 && !(is_stream && errno == EINPROGRESS)) die (what);
  return fd;
}

/* Reads "seq=K;" markers, carrying a short tail over so that a marker split between two reads counts. */
static void scan (struct stream *s, const char *data, size_t length, double at)
{
  char text[sizeof buffer + 32];
  memcpy (text, s->tail, s->tail_len);
  memcpy (text + s->tail_len, data, length);
  size_t total = s->tail_len + length;
  text[total] = 0;
  if (!s->ready && strstr (text, ": connected")) s->ready = 1;
  char *p = text, *last = text;
  while ((p = memmem (p, total - (p - text), "seq=", 4))) {
    char *end = memchr (p, ';', total - (p - text));
    if (!end) break;
    long long seq = atoll (p + 4);
    if (seq > s->maxseq) s->maxseq = seq;
    if (target > 0 && s->maxseq >= target && s->counted != turn) { s->counted = turn; if (++got == count) last_at = at; }
    p = last = end;
  }
  size_t keep = total - (last - text);
  if (keep > 24) keep = 24;
  memcpy (s->tail, text + total - keep, keep);
  s->tail_len = (int) keep;
}

/* Reads everything a stream has; returns 0 when the server closed it. */
static int drain (struct stream *s, double at)
{
  ssize_t n;
  while ((n = read (s->fd, buffer, sizeof buffer)) > 0) scan (s, buffer, (size_t) n, at);
  return !(n == 0 || (n < 0 && errno != EAGAIN));
}

static void open_streams (void)
{
  static const char request[] = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  struct epoll_event events[1024];
  int opened = 0, ready = 0;
  while (ready < count) {
    while (opened < count && opened - ready < 500) {
      streams[opened].fd = connect_to_server (1, "connect /events");
      struct epoll_event e = { .events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t) opened };
      if (epoll_ctl (epoll_fd, EPOLL_CTL_ADD, streams[opened].fd, &e)) die ("epoll_ctl");
      opened++;
    }
    int n = epoll_wait (epoll_fd, events, 1024, 5000);
    if (n <= 0) { fprintf (stderr, "ssepair (port %d): stalled with %d of %d streams ready\n", port, ready, count); exit (1); }
    for (int i = 0; i < n; i++) {
      struct stream *s = &streams[events[i].data.u32];
      if (events[i].events & (EPOLLERR | EPOLLHUP)) { fprintf (stderr, "ssepair (port %d): a stream failed while connecting\n", port); exit (1); }
      if ((events[i].events & EPOLLOUT) && !s->sent) {
        if (write (s->fd, request, sizeof request - 1) != (ssize_t) sizeof request - 1) die ("write");
        s->sent = 1;
        struct epoll_event e = { .events = EPOLLIN, .data.u32 = events[i].data.u32 };
        epoll_ctl (epoll_fd, EPOLL_CTL_MOD, s->fd, &e);
      }
      if (events[i].events & EPOLLIN) {
        int was = s->ready;
        if (!drain (s, now ())) { fprintf (stderr, "ssepair (port %d): the server closed a stream while connecting\n", port); exit (1); }
        if (!was && s->ready) ready++;
      }
    }
  }
}

/* The server's published-event count, from GET /stats ("events=K"). */
static long long published_events (void)
{
  int fd = connect_to_server (0, "connect /stats");
  static const char request[] = "GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  if (write (fd, request, sizeof request - 1) < 0) die ("write /stats");
  char reply[2048];
  size_t length = 0;
  ssize_t n;
  while (length < sizeof reply - 1 && (n = read (fd, reply + length, sizeof reply - 1 - length)) > 0) length += (size_t) n;
  reply[length] = 0;
  close (fd);
  char *p = strstr (reply, "events=");
  return p ? atoll (p + 7) : -1;
}

/* One broadcast: POST /send, then wait until every stream has it. Returns ms, or -1 on a timeout. */
static double broadcast (const char *post, int post_length)
{
  struct epoll_event events[1024];
  got = 0; last_at = 0;
  int fd = connect_to_server (0, "connect /send");
  fcntl (fd, F_SETFL, O_NONBLOCK);
  struct epoll_event e = { .events = EPOLLIN, .data.u32 = POST_TAG };
  epoll_ctl (epoll_fd, EPOLL_CTL_ADD, fd, &e);
  double start = now ();
  if (write (fd, post, (size_t) post_length) != post_length) die ("write /send");
  int post_open = 1;
  while (got < count || post_open) {
    int n = epoll_wait (epoll_fd, events, 1024, 1000);
    double at = now ();
    if (at > start + 10) { fprintf (stderr, "ssepair (port %d): broadcast timed out with %d of %d\n", port, got, count); break; }
    for (int i = 0; i < n; i++) {
      uint32_t tag = events[i].data.u32;
      if (tag == PIPE_TAG) continue;
      if (tag == POST_TAG) {
        ssize_t r = read (fd, buffer, sizeof buffer);
        if (r == 0 || (r < 0 && errno != EAGAIN)) { epoll_ctl (epoll_fd, EPOLL_CTL_DEL, fd, NULL); close (fd); post_open = 0; }
        continue;
      }
      if (!drain (&streams[tag], at)) { fprintf (stderr, "ssepair (port %d): the server closed a stream\n", port); exit (1); }
    }
  }
  if (post_open) { epoll_ctl (epoll_fd, EPOLL_CTL_DEL, fd, NULL); close (fd); }
  return got == count ? (last_at - start) * 1000 : -1;
}

/* Keeps reading the streams (heartbeats) until the parent says what to do next. */
static char next_command (void)
{
  struct epoll_event events[1024];
  for (;;) {
    int n = epoll_wait (epoll_fd, events, 1024, -1);
    for (int i = 0; i < n; i++) {
      if (events[i].data.u32 == PIPE_TAG) {
        char c;
        return read (command_fd, &c, 1) == 1 ? c : 'Q';
      }
      if (events[i].data.u32 != POST_TAG) drain (&streams[events[i].data.u32], now ());
    }
  }
}

static int by_value (const void *a, const void *b) { double x = *(const double *) a, y = *(const double *) b; return x < y ? -1 : x > y; }

static void side (int commands, int acks, int total_broadcasts, int idle_seconds, int gap_ms)
{
  command_fd = commands;
  streams = calloc ((size_t) count, sizeof *streams);
  for (int i = 0; i < count; i++) streams[i].counted = -1;
  epoll_fd = epoll_create1 (0);
  struct epoll_event e = { .events = EPOLLIN, .data.u32 = PIPE_TAG };
  epoll_ctl (epoll_fd, EPOLL_CTL_ADD, command_fd, &e);

  char post[1024], body[600];
  int body_length = snprintf (body, sizeof body, "msg=");
  for (int i = 0; i < 300; i++) body_length += snprintf (body + body_length, sizeof body - body_length, "%c", i % 50 == 49 ? '+' : 'a' + i % 26);
  int post_length = snprintf (post, sizeof post, "POST /send HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                              "Content-Length: %d\r\nConnection: close\r\n\r\n%s", body_length, body);

  double *times = calloc ((size_t) total_broadcasts, sizeof *times);
  double cpu_before = 0, cpu_after = 0, idle_cpu_pct = 0, connect_seconds = 0;
  long rss_before = 0, rss_idle = 0, rss;
  unsigned long long stolen = 0, all = 0;
  long long base = 0;
  int done = 0, missed = 0;
  const char ok = 'k';
  for (;;) {
    char c = next_command ();
    if (c == 'C') {
      server_usage (&cpu_before, &rss_before);
      double started = now ();
      open_streams ();
      connect_seconds = now () - started;
    } else if (c == 'I') {
      sleep (1);
      double started = now ();
      server_usage (&cpu_before, &rss);
      sleep ((unsigned) idle_seconds);
      server_usage (&cpu_after, &rss_idle);
      idle_cpu_pct = 100 * (cpu_after - cpu_before) / (now () - started);
      base = published_events ();
      server_usage (&cpu_before, &rss);
    } else if (c == 'B') {
      unsigned long long s0, t0, s1, t1;
      target = base + done + 1; turn = done;
      machine_steal (&s0, &t0);
      times[done] = broadcast (post, post_length);
      machine_steal (&s1, &t1);
      stolen += s1 - s0; all += t1 - t0;
      if (times[done] < 0) missed++;
      done++;
      double until = now () + gap_ms / 1000.0;
      while (now () < until) {
        struct epoll_event events[1024];
        int n = epoll_wait (epoll_fd, events, 1024, 10);
        for (int i = 0; i < n; i++)
          if (events[i].data.u32 < PIPE_TAG) drain (&streams[events[i].data.u32], now ());
      }
    } else {
      server_usage (&cpu_after, &rss);
      double *sorted = malloc ((size_t) done * sizeof *sorted);
      memcpy (sorted, times, (size_t) done * sizeof *sorted);
      qsort (sorted, (size_t) done, sizeof *sorted, by_value);
#define AT(p) (done ? sorted[(int) ((p) * (done - 1) + 0.5)] : 0)
      printf ("JSON {\"port\":%d,\"N\":%d,\"broadcasts\":%d,\"connect_s\":%.2f,\"idle_cpu_pct\":%.2f,\"rss_preconnect_kb\":%ld,"
              "\"rss_idle_kb\":%ld,\"last_p50_ms\":%.2f,\"last_p99_ms\":%.2f,\"last_max_ms\":%.2f,\"cpu_ms_per_broadcast\":%.1f,"
              "\"steal_pct\":%.1f,\"missed\":%d,\"last_ms\":[",
              port, count, done, connect_seconds, idle_cpu_pct, rss_before, rss_idle, AT (.5), AT (.99), AT (1.0),
              done ? (cpu_after - cpu_before) / done * 1000 : 0, all ? 100.0 * stolen / all : 0, missed);
      for (int i = 0; i < done; i++) printf ("%s%.2f", i ? "," : "", times[i]);
      printf ("]}\n");
      fflush (stdout);
      if (write (acks, &ok, 1) != 1) exit (1);
      exit (0);
    }
    if (write (acks, &ok, 1) != 1) exit (1);
  }
}

int main (int argc, char **argv)
{
  if (argc != 9) { fprintf (stderr, "usage: ssepair <N> <broadcasts> <idle_s> <gap_ms> <port_a> <pid_a> <port_b> <pid_b>\n"); return 2; }
  count = atoi (argv[1]);
  int total_broadcasts = atoi (argv[2]), idle_seconds = atoi (argv[3]), gap_ms = atoi (argv[4]);
  struct rlimit limit = { (rlim_t) count + 512, (rlim_t) count + 512 };
  if (setrlimit (RLIMIT_NOFILE, &limit)) perror ("setrlimit");
  setvbuf (stdout, NULL, _IOLBF, 0);

  int commands[2], acks[2];
  pid_t children[2];
  for (int i = 0; i < 2; i++) {
    int to_child[2], from_child[2];
    if (pipe (to_child) || pipe (from_child)) die ("pipe");
    port = atoi (argv[5 + 2 * i]);
    server_pid = atoi (argv[6 + 2 * i]);
    children[i] = fork ();
    if (children[i] < 0) die ("fork");
    if (children[i] == 0) {
      close (to_child[1]); close (from_child[0]);
      if (i == 1) { close (commands[0]); close (acks[0]); }
      side (to_child[0], from_child[1], total_broadcasts, idle_seconds, gap_ms);
    }
    close (to_child[0]); close (from_child[1]);
    commands[i] = to_child[1]; acks[i] = from_child[0];
  }

  /* Tells one side what to do and waits until it is done; a side that died ends the run. */
  #define TELL(i, c) do { char command = (c), reply; \
      if (write (commands[i], &command, 1) != 1 || read (acks[i], &reply, 1) != 1) { \
        fprintf (stderr, "ssepair: the client for port %s stopped\n", argv[5 + 2 * (i)]); kill (children[1 - (i)], SIGKILL); return 1; } \
    } while (0)
  TELL (0, 'C'); TELL (1, 'C');
  /* Both idle at once: an idle server does nothing, so neither disturbs the other's figure. */
  char idle = 'I', reply;
  if (write (commands[0], &idle, 1) != 1 || write (commands[1], &idle, 1) != 1) die ("write");
  if (read (acks[0], &reply, 1) != 1 || read (acks[1], &reply, 1) != 1) { fprintf (stderr, "ssepair: a client stopped while idle\n"); return 1; }
  for (int k = 0; k < total_broadcasts; k++) {
    int first = k % 2;  /* A B B A A B ...: neither server always follows the other */
    TELL (first, 'B');
    TELL (1 - first, 'B');
  }
  TELL (0, 'Q'); TELL (1, 'Q');
  for (int i = 0; i < 2; i++) waitpid (children[i], NULL, 0);
  return 0;
}
