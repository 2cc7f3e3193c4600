/*
 * A stand-in for the kernel's AF_ALG sockets, preloaded into BlueZ's btvirt: its LE controllers
 * open `skcipher`/`ecb(aes)` and `hash`/`cmac(aes)` through AF_ALG (BlueZ src/shared/crypto.c),
 * which the kernel of these machines lacks, so btvirt drops every LE client. This serves exactly
 * those two algorithms with OpenSSL, over the same calls BlueZ makes: socket, bind, setsockopt
 * (ALG_SET_KEY), accept/accept4, send/sendmsg, read, close (/work/shared/TESTING.md; facts in
 * docs/decisions.md, "Proof against BlueZ's btvirt").
 *
 * An operation socket is one end of a Unix socketpair: what BlueZ sends to it is computed here
 * and the result written into the other end, so BlueZ's own read() returns it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

enum kind { NONE, LISTENER, OPERATION };
enum alg { ALG_UNKNOWN, ALG_ECB_AES, ALG_CMAC_AES };

struct entry {
  enum kind kind;
  enum alg alg;
  unsigned char key[32];
  int key_len;
  int peer; /* OPERATION: the end results are written to */
};

#define MAX_FD 4096
static struct entry table[MAX_FD];

static int (*real_socket)(int, int, int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static int (*real_close)(int);

static void load(void) {
  if (real_socket) return;
  real_socket = dlsym(RTLD_NEXT, "socket");
  real_bind = dlsym(RTLD_NEXT, "bind");
  real_setsockopt = dlsym(RTLD_NEXT, "setsockopt");
  real_accept = dlsym(RTLD_NEXT, "accept");
  real_accept4 = dlsym(RTLD_NEXT, "accept4");
  real_send = dlsym(RTLD_NEXT, "send");
  real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
  real_close = dlsym(RTLD_NEXT, "close");
}

static struct entry *find(int fd, enum kind kind) {
  if (fd < 0 || fd >= MAX_FD || table[fd].kind != kind) return NULL;
  return &table[fd];
}

int socket(int domain, int type, int protocol) {
  load();
  if (domain != AF_ALG) return real_socket(domain, type, protocol);
  int fd = open("/dev/null", O_RDWR | ((type & SOCK_CLOEXEC) ? O_CLOEXEC : 0));
  if (fd < 0) return -1;
  if (fd >= MAX_FD) {
    real_close(fd);
    errno = EMFILE;
    return -1;
  }
  memset(&table[fd], 0, sizeof table[fd]);
  table[fd].kind = LISTENER;
  return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  load();
  struct entry *e = find(fd, LISTENER);
  if (!e) return real_bind(fd, addr, len);
  const struct sockaddr_alg *alg = (const struct sockaddr_alg *)addr;
  if (!strcmp((const char *)alg->salg_type, "skcipher") &&
      !strcmp((const char *)alg->salg_name, "ecb(aes)"))
    e->alg = ALG_ECB_AES;
  else if (!strcmp((const char *)alg->salg_type, "hash") &&
           !strcmp((const char *)alg->salg_name, "cmac(aes)"))
    e->alg = ALG_CMAC_AES;
  else {
    errno = ENOENT;
    return -1;
  }
  return 0;
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t len) {
  load();
  struct entry *e = find(fd, LISTENER);
  if (!e) return real_setsockopt(fd, level, name, value, len);
  if (level != SOL_ALG || name != ALG_SET_KEY || len > sizeof e->key) {
    errno = EINVAL;
    return -1;
  }
  memcpy(e->key, value, len);
  e->key_len = (int)len;
  return 0;
}

static int operation(struct entry *listener, int flags) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | (flags & SOCK_CLOEXEC), 0, pair) < 0) return -1;
  if (pair[0] >= MAX_FD || pair[1] >= MAX_FD) {
    real_close(pair[0]);
    real_close(pair[1]);
    errno = EMFILE;
    return -1;
  }
  table[pair[0]] = *listener;
  table[pair[0]].kind = OPERATION;
  table[pair[0]].peer = pair[1];
  return pair[0];
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
  load();
  struct entry *e = find(fd, LISTENER);
  return e ? operation(e, 0) : real_accept(fd, addr, len);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  load();
  struct entry *e = find(fd, LISTENER);
  return e ? operation(e, flags) : real_accept4(fd, addr, len, flags);
}

static int ecb(const struct entry *e, const unsigned char *in, int len, unsigned char *out) {
  const EVP_CIPHER *cipher = e->key_len == 32 ? EVP_aes_256_ecb()
                             : e->key_len == 24 ? EVP_aes_192_ecb()
                                                : EVP_aes_128_ecb();
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = 0, m = 0, ok = ctx && EVP_EncryptInit_ex(ctx, cipher, NULL, e->key, NULL) &&
                         EVP_CIPHER_CTX_set_padding(ctx, 0) &&
                         EVP_EncryptUpdate(ctx, out, &n, in, len) &&
                         EVP_EncryptFinal_ex(ctx, out + n, &m);
  EVP_CIPHER_CTX_free(ctx);
  return ok ? n + m : -1;
}

static int cmac(const struct entry *e, const unsigned char *in, size_t len, unsigned char *out) {
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
  EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
  char cipher[] = "AES-128-CBC";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher, 0),
                         OSSL_PARAM_construct_end()};
  size_t n = 0;
  int ok = ctx && EVP_MAC_init(ctx, e->key, (size_t)e->key_len, params) &&
           EVP_MAC_update(ctx, in, len) && EVP_MAC_final(ctx, out, &n, 16);
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  return ok ? (int)n : -1;
}

/* Computes over what BlueZ sent and leaves the result for its read(). */
static ssize_t compute(struct entry *e, const unsigned char *in, size_t len) {
  unsigned char out[4096];
  int n;
  if (len > sizeof out - 32) {
    errno = EMSGSIZE;
    return -1;
  }
  n = e->alg == ALG_ECB_AES ? ecb(e, in, (int)len, out) : cmac(e, in, len, out);
  if (n < 0 || real_send(e->peer, out, (size_t)n, 0) != n) {
    errno = EIO;
    return -1;
  }
  return (ssize_t)len;
}

ssize_t send(int fd, const void *buf, size_t len, int flags) {
  load();
  struct entry *e = find(fd, OPERATION);
  return e ? compute(e, buf, len) : real_send(fd, buf, len, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) {
  load();
  struct entry *e = find(fd, OPERATION);
  if (!e) return real_sendmsg(fd, msg, flags);
  unsigned char in[4096];
  size_t len = 0;
  for (size_t i = 0; i < msg->msg_iovlen; i++) {
    if (len + msg->msg_iov[i].iov_len > sizeof in) {
      errno = EMSGSIZE;
      return -1;
    }
    memcpy(in + len, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
    len += msg->msg_iov[i].iov_len;
  }
  return compute(e, in, len);
}

int close(int fd) {
  load();
  if (fd >= 0 && fd < MAX_FD && table[fd].kind != NONE) {
    if (table[fd].kind == OPERATION) real_close(table[fd].peer);
    memset(&table[fd], 0, sizeof table[fd]);
  }
  return real_close(fd);
}
