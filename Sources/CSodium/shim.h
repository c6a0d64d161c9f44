// libsodium from Debian (libsodium-dev): Argon2id password hashes, random tokens, BLAKE2b.
#include <sodium.h>
