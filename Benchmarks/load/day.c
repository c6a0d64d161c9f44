/* A day of an organisation on one Parlor: N people, each with one open page (an event stream).
 *
 * usage: day <port> <server_pid> <plan> <session_suffix> <photo.jpg> <warmup_s> <seconds> <seed>
 *
 * The plan (Sources/parlor-day-fill writes it) lists each person's chats. Person i is signed in with the
 * cookie parlor_session=daysession<i>x<session_suffix> and posts the CSRF token daycsrf<i>. Each person:
 *  - keeps one page open: GET /rooms/<chat> (timed: "page"), then its stream /events?chat=<chat>;
 *  - sends into the chat on screen on average once per minute (Poisson; POST /rooms/<chat>/messages as the
 *    page script does, timed: "send"); the body starts with dz<seq>z, which is how deliveries are found;
 *  - reads what arrives as the page script does: 300 ms after the last new message cell, POST
 *    /rooms/<chat>/read with the newest message id (timed: "read");
 *  - opens another of their chats, at random, every two minutes on average (Poisson);
 *  - sends a photo once an hour on average (Poisson; multipart POST, timed: "photo").
 * A delivery is a message cell appended on another person's page showing the chat (Send -> that page:
 * "delivery"); the chat moving to the top of the list on every page of its members ("list") is timed too.
 *
 * Requests go over a pool of keep-alive connections, as many browsers would over theirs; each request's
 * time runs from when it was due, so a slow server (or pool) is not hidden by waiting to send.
 * The server's CPU and RSS are read from /proc each second; this client's own CPU is reported beside them.
 * Output: a human-readable block and a line starting with "JSON ". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define POOL 64
#define MAX_SEQ (1 << 22)

static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void die (const char *what) { fprintf (stderr, "day: %s: %s\n", what, strerror (errno)); exit (1); }

/* ------------------------------------------------------------------ random */
static uint64_t rng_state;
static double uniform (void)
{
  rng_state += 0x9E3779B97F4A7C15ull;
  uint64_t z = rng_state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
  return (z >> 11) * (1.0 / 9007199254740992.0);
}
static double exponential (double mean) { return -mean * log (1.0 - uniform ()); }

/* ------------------------------------------------------------------ samples */
struct samples { double *v; size_t n, cap; };
static void add (struct samples *s, double x)
{
  if (s->n == s->cap) { s->cap = s->cap ? s->cap * 2 : 4096; s->v = realloc (s->v, s->cap * sizeof *s->v); if (!s->v) die ("realloc"); }
  s->v[s->n++] = x;
}
static int cmpd (const void *a, const void *b) { double x = *(const double *) a, y = *(const double *) b; return x < y ? -1 : x > y; }
static double pct (struct samples *s, double p)
{
  if (!s->n) return NAN;
  return s->v[(size_t) llround (p * (s->n - 1))] * 1000;
}

/* ------------------------------------------------------------------ people and pages */
struct person {
  int *chats; int chat_count;
  int chat;            /* the chat on screen */
  int stream;          /* fd, -1 when none */
  int stream_ready;    /* the stream's answer began */
  double stream_since; /* when it began */
  char tail[48]; int tail_len;
  char action[12];     /* the last stream action seen */
  long long newest, reported;
  double read_due;     /* 0: no read pending */
  int page_pending;    /* a GET of a page is queued or running */
  long long counted[8]; int counted_next; /* the last cells counted: one cell is one delivery */
};
static struct person *people;
static int N, port, server_pid, max_chat;
static char suffix[64];
static int *chat_pages;          /* streams ready on each chat */
static double *sent_at;          /* per message number */
static int *sent_chat, *sent_by;
static long long seq;
static int measuring;
static long long expected_cells;
static struct samples s_delivery, s_everyone, s_list, s_page, s_send, s_read, s_photo, s_post;
static int everyone_room; /* the open room of everyone: every person's first chat */
static long long doubled, failures[4], refused_streams, stream_bytes, cells, lists, closed_streams, queue_peak;
static char *photo; static size_t photo_len;
static unsigned long long run_id; /* tells this run's tokens from an earlier run's on the same database */

/* ------------------------------------------------------------------ timers: a binary heap */
enum { T_SEND, T_SWITCH, T_PHOTO, T_READ };
struct timer { double at; int person; int kind; };
static struct timer *heap; static size_t heap_n, heap_cap;
static void push (double at, int person, int kind)
{
  if (heap_n == heap_cap) { heap_cap = heap_cap ? heap_cap * 2 : 1024; heap = realloc (heap, heap_cap * sizeof *heap); }
  size_t i = heap_n++;
  while (i && heap[(i - 1) / 2].at > at) { heap[i] = heap[(i - 1) / 2]; i = (i - 1) / 2; }
  heap[i] = (struct timer) { at, person, kind };
}
static struct timer pop (void)
{
  struct timer top = heap[0], last = heap[--heap_n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= heap_n) break;
    if (c + 1 < heap_n && heap[c + 1].at < heap[c].at) c++;
    if (heap[c].at >= last.at) break;
    heap[i] = heap[c]; i = c;
  }
  if (heap_n) heap[i] = last;
  return top;
}

/* ------------------------------------------------------------------ sockets */
static int epoll_fd;
static int connect_loopback (void)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) die ("socket");
  int one = 1; setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons (port) };
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (void *) &a, sizeof a) < 0 && errno != EINPROGRESS) die ("connect");
  return fd;
}
/* epoll data: person index for streams, POOL_BASE + slot for pooled connections */
#define POOL_BASE 0x40000000u

/* ------------------------------------------------------------------ requests */
enum { R_SEND, R_READ, R_PAGE, R_PHOTO };
struct request { int kind; int person; int chat; long long arg; double due; };
static struct request *queue; static size_t q_head, q_tail, q_cap;
static void enqueue (struct request r)
{
  if (q_tail - q_head == q_cap) {
    size_t cap = q_cap ? q_cap * 2 : 1024; struct request *bigger = malloc (cap * sizeof *bigger);
    for (size_t i = 0; i < q_tail - q_head; i++) bigger[i] = queue[(q_head + i) % q_cap];
    q_tail -= q_head; q_head = 0; free (queue); queue = bigger; q_cap = cap;
  }
  queue[q_tail++ % q_cap] = r;
  if ((long long) (q_tail - q_head) > queue_peak) queue_peak = q_tail - q_head;
}

struct slot {
  int fd, busy, connected;
  struct request r;
  char *out; size_t out_len, out_off;
  char head[8192]; size_t head_len;
  int in_body, chunked, status; long long remaining; /* body bytes left (content-length) */
  char chunk_line[64]; int chunk_state; size_t chunk_line_len; /* chunked: 0 size line, 1 data, 2 CRLF after data */
};
static struct slot pool[POOL];

static void open_stream (int i);
static void arm (int fd, uint32_t data, uint32_t events, int op)
{
  /* the fd rides along: an event for a socket closed earlier in the same batch is told apart */
  struct epoll_event e = { .events = events, .data.u64 = ((uint64_t) (uint32_t) fd << 32) | data };
  if (epoll_ctl (epoll_fd, op, fd, &e) < 0) die ("epoll_ctl");
}

static char *format_request (struct request *r, size_t *len)
{
  char path[96], body[256]; int blen = 0; char *out;
  int chat = r->chat;
  switch (r->kind) {
  case R_PAGE:
    snprintf (path, sizeof path, "/rooms/%d", chat);
    if (asprintf (&out, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: parlor_session=daysession%dx%s\r\n\r\n", path, r->person, suffix) < 0) die ("asprintf");
    *len = strlen (out); return out;
  case R_SEND:
    /* the token is this run's own: a token Parlor has stored already is a send retried, not a new message */
    blen = snprintf (body, sizeof body, "csrf=daycsrf%d&body=dz%lldz+about+the+plan+for+today%%2C+see+you+at+three&token=day%llux%lld",
                     r->person, r->arg, run_id, r->arg);
    snprintf (path, sizeof path, "/rooms/%d/messages", chat); break;
  case R_READ:
    blen = snprintf (body, sizeof body, "csrf=daycsrf%d&upTo=%lld", r->person, r->arg);
    snprintf (path, sizeof path, "/rooms/%d/read", chat); break;
  case R_PHOTO: { /* as the composer posts it: the form's token in its address too (read before the body) */
    snprintf (path, sizeof path, "/rooms/%d/messages?csrf=daycsrf%d", chat, r->person);
    char head[512], tail[64];
    int hl = snprintf (head, sizeof head,
      "--dayboundary\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ndaycsrf%d\r\n"
      "--dayboundary\r\nContent-Disposition: form-data; name=\"body\"\r\n\r\nA photo of the whiteboard\r\n"
      "--dayboundary\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\ndayphoto%llux%lld\r\n"
      "--dayboundary\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"photo.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n",
      r->person, run_id, r->arg);
    int tl = snprintf (tail, sizeof tail, "\r\n--dayboundary--\r\n");
    size_t total = hl + photo_len + tl;
    char top[512];
    int topl = snprintf (top, sizeof top, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: parlor_session=daysession%dx%s\r\n"
      "X-Parlor-Script: 1\r\nContent-Type: multipart/form-data; boundary=dayboundary\r\nContent-Length: %zu\r\n\r\n", path, r->person, suffix, total);
    out = malloc (topl + total); if (!out) die ("malloc");
    memcpy (out, top, topl); memcpy (out + topl, head, hl); memcpy (out + topl + hl, photo, photo_len); memcpy (out + topl + hl + photo_len, tail, tl);
    *len = topl + total; return out;
  }
  }
  if (asprintf (&out, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: parlor_session=daysession%dx%s\r\nX-Parlor-Script: 1\r\n"
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", path, r->person, suffix, blen, body) < 0) die ("asprintf");
  *len = strlen (out); return out;
}

static void slot_reset (struct slot *s)
{
  s->busy = 0; free (s->out); s->out = NULL; s->head_len = 0; s->in_body = 0; s->chunked = 0; s->remaining = 0; s->chunk_state = 0; s->chunk_line_len = 0;
}

static void slot_open (int k)
{
  struct slot *s = &pool[k];
  s->fd = connect_loopback (); s->connected = 0;
  arm (s->fd, POOL_BASE + k, EPOLLOUT | EPOLLIN, EPOLL_CTL_ADD);
}

static void start_next (int k)
{
  struct slot *s = &pool[k];
  if (s->busy || q_head == q_tail) return;
  s->r = queue[q_head++ % q_cap];
  s->out = format_request (&s->r, &s->out_len); s->out_off = 0; s->busy = 1;
  arm (s->fd, POOL_BASE + k, EPOLLOUT | EPOLLIN, EPOLL_CTL_MOD);
}

static void request_done (struct slot *s, int ok)
{
  struct request r = s->r;
  double t = now () - r.due;
  struct samples *which = r.kind == R_SEND ? &s_send : r.kind == R_READ ? &s_read : r.kind == R_PAGE ? &s_page : &s_photo;
  if (measuring) { if (ok) { add (which, t); if (r.kind != R_PAGE) add (&s_post, t); } else failures[r.kind]++; }
  if (r.kind == R_PAGE) {
    people[r.person].page_pending = 0;
    if (people[r.person].chat == r.chat) open_stream (r.person);
  }
}

/* Reads what the pooled connection has; answers whether it is still usable. */
static int slot_read (struct slot *s)
{
  static char buffer[65536];
  for (;;) {
    ssize_t n = read (s->fd, buffer, sizeof buffer);
    if (n == 0) return 0;
    if (n < 0) return errno == EAGAIN ? 1 : 0;
    size_t at = 0;
    while (at < (size_t) n) {
      if (!s->in_body) {
        size_t room = sizeof s->head - 1 - s->head_len, take = (size_t) n - at < room ? (size_t) n - at : room;
        memcpy (s->head + s->head_len, buffer + at, take); s->head_len += take; s->head[s->head_len] = 0;
        char *end = strstr (s->head, "\r\n\r\n");
        if (!end) { if (take == room) return 0; at += take; continue; }
        size_t head_bytes = end + 4 - s->head;
        at += take - (s->head_len - head_bytes);
        s->status = atoi (s->head + 9);
        char *length = strcasestr (s->head, "\r\nContent-Length:");
        s->chunked = strcasestr (s->head, "\r\nTransfer-Encoding: chunked") != NULL;
        s->remaining = length ? atoll (length + 17) : 0;
        s->in_body = 1;
        if (!s->chunked && s->remaining == 0) {
          if (!s->busy) return 0;
          int ok = s->status >= 200 && s->status < 400; /* 303: a form answered as without the script */
          request_done (s, ok); slot_reset (s); return 1;
        }
        continue;
      }
      if (!s->chunked) {
        size_t take = (size_t) n - at < (size_t) s->remaining ? (size_t) n - at : (size_t) s->remaining;
        at += take; s->remaining -= take;
        if (s->remaining == 0) { int ok = s->status >= 200 && s->status < 400; request_done (s, ok); slot_reset (s); return 1; }
        continue;
      }
      /* chunked */
      if (s->chunk_state == 1) {
        size_t take = (size_t) n - at < (size_t) s->remaining ? (size_t) n - at : (size_t) s->remaining;
        at += take; s->remaining -= take;
        if (s->remaining == 0) { s->chunk_state = 2; s->chunk_line_len = 0; }
        continue;
      }
      char c = buffer[at++];
      if (s->chunk_line_len < sizeof s->chunk_line - 1) s->chunk_line[s->chunk_line_len++] = c;
      if (c != '\n') continue;
      s->chunk_line[s->chunk_line_len] = 0;
      if (s->chunk_state == 2) { s->chunk_state = 0; s->chunk_line_len = 0; continue; }
      long long size = strtoll (s->chunk_line, NULL, 16);
      s->chunk_line_len = 0;
      if (size == 0) { /* last chunk; trailers are not sent */
        at += 2; int ok = s->status >= 200 && s->status < 400; request_done (s, ok); slot_reset (s); return 1;
      }
      s->remaining = size; s->chunk_state = 1;
    }
  }
}

static void slot_event (int k, uint32_t events)
{
  struct slot *s = &pool[k];
  if (events & (EPOLLERR | EPOLLHUP)) goto broken;
  if (!s->connected && (events & EPOLLOUT)) { s->connected = 1; if (!s->busy) arm (s->fd, POOL_BASE + k, EPOLLIN, EPOLL_CTL_MOD); }
  if ((events & EPOLLOUT) && s->busy && s->out_off < s->out_len) {
    while (s->out_off < s->out_len) {
      ssize_t w = write (s->fd, s->out + s->out_off, s->out_len - s->out_off);
      if (w < 0) { if (errno == EAGAIN) break; goto broken; }
      s->out_off += w;
    }
    if (s->out_off == s->out_len) arm (s->fd, POOL_BASE + k, EPOLLIN, EPOLL_CTL_MOD);
  }
  if (events & EPOLLIN) { if (!slot_read (s)) goto broken; }
  if (s->connected && !s->busy) start_next (k);
  return;
broken:
  if (s->busy) { request_done (s, 0); }
  close (s->fd); slot_reset (s); slot_open (k);
}

/* ------------------------------------------------------------------ streams */
static void close_stream (int i)
{
  struct person *p = &people[i];
  if (p->stream < 0) return;
  if (p->stream_ready) chat_pages[p->chat]--;
  close (p->stream); p->stream = -1; p->stream_ready = 0; p->tail_len = 0; p->action[0] = 0;
}

static void open_stream (int i)
{
  struct person *p = &people[i];
  close_stream (i);
  p->stream = connect_loopback ();
  p->newest = 0; p->reported = 0; p->read_due = 0;
  arm (p->stream, (uint32_t) i, EPOLLOUT | EPOLLIN, EPOLL_CTL_ADD);
}

/* Finds actions, message ids and dz<seq>z markers in what a page's stream brought. */
static void scan (int i, const char *data, size_t n, double t)
{
  struct person *p = &people[i];
  static char buffer[65536 + 64];
  memcpy (buffer, p->tail, p->tail_len); memcpy (buffer + p->tail_len, data, n);
  size_t len = p->tail_len + n; buffer[len] = 0;
  int new_cells = 0;
  for (char *c = buffer; c < buffer + len; c++) {
    if (*c != 'a' && *c != 'd') continue;
    size_t left = len - (c - buffer);
    if (left >= 8 && !memcmp (c, "action=\"", 8)) { /* a new envelope: its action */
      int k = 0; const char *a = c + 8;
      while (k < 11 && a + k < buffer + len && a[k] != '"') { p->action[k] = a[k]; k++; }
      p->action[k] = 0; continue;
    }
    if (*c == 'd' && left >= 4 && c[1] == 'z' && c[2] >= '0' && c[2] <= '9') {
      char *e = c + 2; long long s = 0;
      while (e < buffer + len && *e >= '0' && *e <= '9') { s = s * 10 + (*e - '0'); e++; }
      if (e >= buffer + len || *e != 'z' || s <= 0 || s >= seq || c < buffer + 2) continue;
      if (!measuring || sent_at[s] < p->stream_since) continue; /* in the page's first state, or before the run */
      /* a cell's text: right after its element, or its first paragraph ("<p>dz12z", formatted text) */
      int is_cell = ((c[-2] == '"' && c[-1] == '>') || (c >= buffer + 3 && c[-3] == '<' && c[-2] == 'p' && c[-1] == '>'))
                    && !strcmp (p->action, "append");
      /* a chat moving to the top of the list (a replace is a count changing, the same preview) */
      int is_list = c[-2] == ':' && c[-1] == ' ' && !strcmp (p->action, "prepend");
      if (is_cell && sent_chat[s] == p->chat && sent_by[s] != i) { /* the sender's own page shows it at once */
        int again = 0;
        for (int k = 0; k < 8; k++) again |= p->counted[k] == s;
        if (again) { doubled++; continue; }
        p->counted[p->counted_next++ % 8] = s;
        add (&s_delivery, t - sent_at[s]); cells++;
        if (sent_chat[s] == everyone_room) add (&s_everyone, t - sent_at[s]);
      }
      else if (is_list) { add (&s_list, t - sent_at[s]); lists++; }
    }
  }
  /* message ids, for the read receipts: <li class="message[ continues-group]" id="message-N">, not the page's own */
  for (char *c = buffer; (c = memmem (c, len - (c - buffer), "<li class=\"message", 18)); c += 18) {
    char *end = memchr (c, '>', len - (c - buffer));
    if (!end) break;
    char *id = memmem (c, end - c, "id=\"message-", 12);
    if (!id || memmem (c, end - c, "is-own", 6)) continue;
    long long n = atoll (id + 12);
    if (n > p->newest) { p->newest = n; new_cells = 1; }
  }
  if (new_cells && p->newest > p->reported) { p->read_due = t + 0.3; push (p->read_due, i, T_READ); }
  size_t keep = len < 40 ? len : 40;
  /* keep the tail unless it holds a complete marker already counted: only partial ones matter */
  memcpy (p->tail, buffer + len - keep, keep); p->tail_len = (int) keep;
  /* a complete marker in the tail would be counted twice: cut the tail after the last one ("...12z") */
  for (int j = p->tail_len - 1; j > 0; j--)
    if (p->tail[j] == 'z' && p->tail[j - 1] >= '0' && p->tail[j - 1] <= '9') {
      memmove (p->tail, p->tail + j + 1, p->tail_len - j - 1); p->tail_len -= j + 1; break;
    }
}

static void stream_event (int i, uint32_t events)
{
  static char buffer[65536];
  struct person *p = &people[i];
  if (events & (EPOLLERR | EPOLLHUP)) { closed_streams++; close_stream (i); return; }
  if ((events & EPOLLOUT) && !p->stream_ready && p->tail_len == 0 && p->action[0] == 0) {
    char request[256];
    int l = snprintf (request, sizeof request, "GET /events?chat=%d HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                      "Cookie: parlor_session=daysession%dx%s\r\n\r\n", p->chat, i, suffix);
    ssize_t w = write (p->stream, request, l);
    if (w < 0 && errno == EAGAIN) return;
    if (w != l) { closed_streams++; close_stream (i); return; }
    p->action[0] = '-'; p->action[1] = 0; /* sent */
    arm (p->stream, (uint32_t) i, EPOLLIN, EPOLL_CTL_MOD);
  }
  if (!(events & EPOLLIN)) return;
  for (;;) {
    ssize_t n = read (p->stream, buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EAGAIN)) { closed_streams++; close_stream (i); return; }
    if (n < 0) return;
    double t = now ();
    if (measuring) stream_bytes += n;
    if (!p->stream_ready) {
      if (n < 12 || memcmp (buffer + 9, "200", 3)) { refused_streams++; close_stream (i); return; }
      p->stream_ready = 1; p->stream_since = t; chat_pages[p->chat]++;
    }
    scan (i, buffer, (size_t) n, t);
  }
}

/* ------------------------------------------------------------------ the server's use */
static void usage_of (int pid, double *cpu, long *rss_kb)
{
  char path[64], line[4096]; *cpu = -1; *rss_kb = -1;
  snprintf (path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen (path, "r");
  if (f) {
    if (fgets (line, sizeof line, f)) {
      unsigned long user = 0, system = 0; char *fields = strrchr (line, ')');
      if (fields && sscanf (fields + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) == 2)
        *cpu = (double) (user + system) / sysconf (_SC_CLK_TCK);
    }
    fclose (f);
  }
  snprintf (path, sizeof path, "/proc/%d/status", pid);
  f = fopen (path, "r");
  if (f) { while (fgets (line, sizeof line, f)) sscanf (line, "VmRSS: %ld", rss_kb); fclose (f); }
}
static double own_cpu (void)
{
  struct rusage u; getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

/* ------------------------------------------------------------------ the day */
static void fire (struct timer t)
{
  struct person *p = &people[t.person];
  double at = now ();
  switch (t.kind) {
  case T_SEND:
    push (t.at + exponential (60), t.person, T_SEND);
    if (!p->stream_ready || seq >= MAX_SEQ - 1) break; /* sends from the page on screen */
    sent_at[seq] = t.at; sent_chat[seq] = p->chat; sent_by[seq] = t.person;
    if (measuring) expected_cells += chat_pages[p->chat] - 1; /* every other page showing the chat */
    enqueue ((struct request) { R_SEND, t.person, p->chat, seq, t.at }); seq++;
    break;
  case T_SWITCH: {
    push (t.at + exponential (120), t.person, T_SWITCH);
    if (p->page_pending || p->chat_count < 2) break;
    int next = p->chat;
    while (next == p->chat) next = p->chats[(int) (uniform () * p->chat_count)];
    close_stream (t.person);
    p->chat = next; p->page_pending = 1;
    enqueue ((struct request) { R_PAGE, t.person, next, 0, t.at });
    break;
  }
  case T_PHOTO:
    push (t.at + exponential (3600), t.person, T_PHOTO);
    if (!p->stream_ready || !photo_len) break;
    enqueue ((struct request) { R_PHOTO, t.person, p->chat, seq++, t.at });
    break;
  case T_READ:
    if (p->read_due != t.at || !p->stream_ready || p->newest <= p->reported) break; /* a later cell moved it */
    p->reported = p->newest; p->read_due = 0;
    enqueue ((struct request) { R_READ, t.person, p->chat, p->newest, t.at });
    break;
  }
  (void) at;
}

static void dispatch (struct epoll_event event)
{
  uint32_t d = (uint32_t) event.data.u64; int fd = (int) (event.data.u64 >> 32);
  if (d >= POOL_BASE) { if (pool[d - POOL_BASE].fd == fd) slot_event ((int) (d - POOL_BASE), event.events); }
  else if (people[d].stream == fd) stream_event ((int) d, event.events);
}

static void loop_until (double end)
{
  struct epoll_event events[1024];
  while (now () < end) {
    double t = now ();
    while (heap_n && heap[0].at <= t) fire (pop ());
    for (int k = 0; k < POOL; k++) if (pool[k].connected && !pool[k].busy) start_next (k);
    double wait = heap_n ? heap[0].at - now () : 0.05;
    if (wait > 0.05) wait = 0.05;
    int n = epoll_wait (epoll_fd, events, 1024, wait > 0 ? (int) (wait * 1000) + 1 : 0);
    for (int e = 0; e < n; e++) {
      dispatch (events[e]);
    }
  }
}

int main (int argc, char **argv)
{
  if (argc != 9) { fprintf (stderr, "usage: day <port> <server_pid> <plan> <session_suffix> <photo.jpg> <warmup_s> <seconds> <seed>\n"); return 2; }
  port = atoi (argv[1]); server_pid = atoi (argv[2]); snprintf (suffix, sizeof suffix, "%s", argv[4]);
  double warmup = atof (argv[6]), seconds = atof (argv[7]); rng_state = strtoull (argv[8], NULL, 10);
  setvbuf (stdout, NULL, _IOLBF, 0);
  { struct timespec w; clock_gettime (CLOCK_REALTIME, &w); run_id = (unsigned long long) w.tv_sec * 1000000ull + w.tv_nsec / 1000; }
  struct rlimit rl; getrlimit (RLIMIT_NOFILE, &rl); rl.rlim_cur = rl.rlim_max; setrlimit (RLIMIT_NOFILE, &rl);

  FILE *plan = fopen (argv[3], "r"); if (!plan) die ("plan");
  if (fscanf (plan, "N %d\n", &N) != 1 || N <= 0) { fprintf (stderr, "day: bad plan\n"); return 1; }
  if ((rlim_t) N + POOL + 64 > rl.rlim_cur) { fprintf (stderr, "day: %d streams need more open files than %ld\n", N, (long) rl.rlim_cur); return 1; }
  people = calloc (N, sizeof *people);
  char *line = NULL; size_t cap = 0;
  for (int i = 0; i < N; i++) {
    if (getline (&line, &cap, plan) < 0) { fprintf (stderr, "day: plan ends early\n"); return 1; }
    int index, used; char *at = line;
    if (sscanf (at, "P %d%n", &index, &used) != 1 || index != i) { fprintf (stderr, "day: bad plan line %d\n", i); return 1; }
    at += used;
    people[i].chats = malloc (64 * sizeof (int)); int c;
    while (people[i].chat_count < 64 && sscanf (at, "%d%n", &c, &used) == 1) { people[i].chats[people[i].chat_count++] = c; if (c > max_chat) max_chat = c; at += used; }
    people[i].stream = -1;
  }
  fclose (plan);
  everyone_room = people[0].chats[0];
  FILE *image = fopen (argv[5], "rb");
  if (image) { fseek (image, 0, SEEK_END); photo_len = ftell (image); fseek (image, 0, SEEK_SET); photo = malloc (photo_len); if (fread (photo, 1, photo_len, image) != photo_len) die ("photo"); fclose (image); }
  chat_pages = calloc (max_chat + 1, sizeof *chat_pages);
  sent_at = calloc (MAX_SEQ, sizeof *sent_at); sent_chat = calloc (MAX_SEQ, sizeof *sent_chat); sent_by = calloc (MAX_SEQ, sizeof *sent_by);
  seq = 1;
  epoll_fd = epoll_create1 (0);
  for (int k = 0; k < POOL; k++) slot_open (k);

  /* Every page opens on a chat of its person's, a few hundred connecting at a time. */
  double began = now ();
  int opened = 0, ready = 0;
  for (int i = 0; i < N; i++) people[i].chat = people[i].chats[(int) (uniform () * people[i].chat_count)];
  struct epoll_event events[1024];
  while (ready < N && now () - began < 600) {
    while (opened < N && opened - ready < 300) open_stream (opened++);
    int n = epoll_wait (epoll_fd, events, 1024, 1000);
    for (int e = 0; e < n; e++) {
      dispatch (events[e]);
    }
    ready = 0; for (int i = 0; i < opened; i++) ready += people[i].stream_ready;
  }
  printf ("%d pages open in %.1f s (%lld refused)\n", ready, now () - began, refused_streams);

  double t0 = now ();
  for (int i = 0; i < N; i++) {
    push (t0 + exponential (60), i, T_SEND); push (t0 + exponential (120), i, T_SWITCH); push (t0 + exponential (3600), i, T_PHOTO);
  }
  loop_until (t0 + warmup);

  measuring = 1;
  for (int k = 0; k < 4; k++) failures[k] = 0;
  long long first_seq = seq;
  double cpu0, client0 = own_cpu (), start = now (), server_cpu_peak = 0; long rss0, rss_peak = 0;
  usage_of (server_pid, &cpu0, &rss0);
  double last_cpu = cpu0, last_at = start;
  while (now () < start + seconds) {
    loop_until (now () + 1.0 < start + seconds ? now () + 1.0 : start + seconds);
    double cpu; long rss; usage_of (server_pid, &cpu, &rss);
    if (rss > rss_peak) rss_peak = rss;
    double share = (cpu - last_cpu) / (now () - last_at) * 100; if (share > server_cpu_peak) server_cpu_peak = share;
    last_cpu = cpu; last_at = now ();
  }
  double elapsed = now () - start, cpu1; long rss1; usage_of (server_pid, &cpu1, &rss1);
  double client = own_cpu () - client0;
  long long sends = seq - first_seq;
  measuring = 0;
  loop_until (now () + 2); /* deliveries still on their way are not counted: sends near the end are cut short */

  qsort (s_delivery.v, s_delivery.n, sizeof (double), cmpd); qsort (s_everyone.v, s_everyone.n, sizeof (double), cmpd); qsort (s_list.v, s_list.n, sizeof (double), cmpd);
  qsort (s_page.v, s_page.n, sizeof (double), cmpd); qsort (s_send.v, s_send.n, sizeof (double), cmpd);
  qsort (s_read.v, s_read.n, sizeof (double), cmpd); qsort (s_post.v, s_post.n, sizeof (double), cmpd); qsort (s_photo.v, s_photo.n, sizeof (double), cmpd);
  printf ("people %d, %.0f s measured after %.0f s warm-up: %lld messages and photos (%.1f/s), %zu pages, %zu reads, %zu photos\n",
          N, elapsed, warmup, sends, sends / elapsed, s_page.n, s_read.n, s_photo.n);
  printf ("  delivery (Send -> page showing the chat): %zu, p50 %.1f ms, p99 %.1f ms (expected about %lld)\n", s_delivery.n, pct (&s_delivery, .5), pct (&s_delivery, .99), expected_cells);
  printf ("    of which in the room of everyone:        %zu, p50 %.1f ms, p99 %.1f ms\n", s_everyone.n, pct (&s_everyone, .5), pct (&s_everyone, .99));
  printf ("  list moves on members' other pages:        %zu, p50 %.1f ms, p99 %.1f ms\n", s_list.n, pct (&s_list, .5), pct (&s_list, .99));
  printf ("  page GET p50 %.1f ms p99 %.1f ms; send POST p50 %.1f p99 %.1f; read POST p50 %.1f p99 %.1f; photo POST p50 %.1f p99 %.1f\n",
          pct (&s_page, .5), pct (&s_page, .99), pct (&s_send, .5), pct (&s_send, .99), pct (&s_read, .5), pct (&s_read, .99), pct (&s_photo, .5), pct (&s_photo, .99));
  printf ("  every POST (send, read, photo): p99 %.1f ms; cells sent twice to one page: %lld\n", pct (&s_post, .99), doubled);
  printf ("  failures: send %lld read %lld page %lld photo %lld; streams refused %lld, closed %lld; request queue peak %lld\n",
          failures[R_SEND], failures[R_READ], failures[R_PAGE], failures[R_PHOTO], refused_streams, closed_streams, queue_peak);
  printf ("  server CPU %.0f %% (of one core; peak second %.0f %%), RSS %ld MB (peak %ld MB); this client's CPU %.0f %%; %.1f MB/s of streams\n",
          (cpu1 - cpu0) / elapsed * 100, server_cpu_peak, rss1 / 1024, rss_peak / 1024, client / elapsed * 100, stream_bytes / elapsed / 1e6);
  printf ("JSON {\"people\":%d,\"seconds\":%.1f,\"sends\":%lld,\"deliveries\":%zu,\"expected\":%lld,\"delivery_p50_ms\":%.2f,\"delivery_p99_ms\":%.2f,"
          "\"list_moves\":%zu,\"list_p50_ms\":%.2f,\"list_p99_ms\":%.2f,\"pages\":%zu,\"page_p50_ms\":%.2f,\"page_p99_ms\":%.2f,"
          "\"send_p50_ms\":%.2f,\"send_p99_ms\":%.2f,\"reads\":%zu,\"read_p50_ms\":%.2f,\"read_p99_ms\":%.2f,\"photos\":%zu,\"photo_p50_ms\":%.2f,\"photo_p99_ms\":%.2f,"
          "\"post_p99_ms\":%.2f,\"failures\":%lld,\"refused\":%lld,\"closed\":%lld,\"server_cpu_pct\":%.1f,\"server_cpu_peak_pct\":%.1f,\"rss_mb\":%ld,\"rss_peak_mb\":%ld,"
          "\"client_cpu_pct\":%.1f,\"stream_mb_per_s\":%.2f,\"everyone_p99_ms\":%.2f}\n",
          N, elapsed, sends, s_delivery.n, expected_cells, pct (&s_delivery, .5), pct (&s_delivery, .99), s_list.n, pct (&s_list, .5), pct (&s_list, .99),
          s_page.n, pct (&s_page, .5), pct (&s_page, .99), pct (&s_send, .5), pct (&s_send, .99), s_read.n, pct (&s_read, .5), pct (&s_read, .99),
          s_photo.n, pct (&s_photo, .5), pct (&s_photo, .99), pct (&s_post, .99), failures[0] + failures[1] + failures[2] + failures[3], refused_streams, closed_streams,
          (cpu1 - cpu0) / elapsed * 100, server_cpu_peak, rss1 / 1024, rss_peak / 1024, client / elapsed * 100, stream_bytes / elapsed / 1e6, pct (&s_everyone, .99));
  return 0;
}
