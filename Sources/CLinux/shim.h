// The Linux calls that Swift's Glibc module leaves out. For LogStoreConsole's HTTP server:
// epoll and eventfd (their headers are not in Glibc's module map), and accept4, which glibc
// declares only under _GNU_SOURCE (the Glibc module is built without it). All are in the C
// library itself (Debian's libc6-dev): nothing to link.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// Declared here with plain types: including <sys/socket.h> would make its declarations this
// module's, hiding them from files that import Glibc alone. The ABI is the same
// (struct sockaddr *, socklen_t * = unsigned int *).
int accept4(int sockfd, void *addr, unsigned int *addrlen, int flags);

// For ClickHouseCluster's children: close every descriptor from `from` on in the child
// (glibc 2.34 and later; a GNU extension <spawn.h> declares only under _GNU_SOURCE). The same
// plain-type declaration as above: `void *` for posix_spawn_file_actions_t *.
int posix_spawn_file_actions_addclosefrom_np(void *actions, int from);

// For LogStore's threads: name the calling thread as the kernel shows it (a GNU extension
// <pthread.h> declares only under _GNU_SOURCE). The same plain-type declaration: pthread_t is
// `unsigned long` in glibc.
int pthread_setname_np(unsigned long thread, const char *name);
