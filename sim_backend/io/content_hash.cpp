#include "sim_backend/io/content_hash.hpp"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace ibsdn {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext new_sha256() {
  DigestContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 unavailable in libcrypto");
  }
  return ctx;
}

void update(const DigestContext& ctx, const char* data, std::size_t size) {
  if (EVP_DigestUpdate(ctx.get(), data, size) != 1) throw std::runtime_error("SHA-256 failed");
}

std::string finish_hex(const DigestContext& ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md.data(), &size) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xF];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  const DigestContext ctx = new_sha256();
  update(ctx, bytes.data(), bytes.size());
  return finish_hex(ctx);
}

std::string file_sha256_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::strerror(errno));
  const DigestContext ctx = new_sha256();
  std::array<char, 1 << 16> block{};
  while (in) {
    in.read(block.data(), block.size());
    update(ctx, block.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error(std::string("read failed: ") + std::strerror(errno));
  return finish_hex(ctx);
}

}  // namespace ibsdn
