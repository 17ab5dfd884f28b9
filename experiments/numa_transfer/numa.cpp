// numa_transfer's host side (numa.hpp). Best Practices Guide 9.4: the placement of host memory
// relative to the GPU's node is the application's to tune; mbind is the call numactl --membind
// makes for a whole process.
#include "numa.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace apod::numa {

namespace {

// <numaif.h>'s constants (linux/mempolicy.h), spelled here to need no libnuma headers.
constexpr int mpol_bind = 2;
constexpr unsigned mpol_mf_strict = 1, mpol_mf_move = 2;
constexpr size_t max_nodes = 1024;
constexpr size_t mask_words = max_nodes / (8 * sizeof(unsigned long));

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int parse_int(const std::string& s) {
  if (s.empty() ||
      !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw std::invalid_argument("not a node id: '" + s + "'");
  return std::stoi(s);
}

} // namespace

std::vector<int> parse_node_list(const std::string& text) {
  std::string list = text;
  while (!list.empty() && std::isspace(static_cast<unsigned char>(list.back())))
    list.pop_back();
  std::vector<int> nodes;
  if (list.empty())
    return nodes;
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    const size_t dash = item.find('-');
    const int first = parse_int(item.substr(0, dash));
    const int last = dash == std::string::npos ? first : parse_int(item.substr(dash + 1));
    if (last < first)
      throw std::invalid_argument("a node range runs backwards: '" + item + "'");
    for (int n = first; n <= last; ++n)
      nodes.push_back(n);
  }
  return nodes;
}

std::vector<int> parse_distances(const std::string& text) {
  std::vector<int> row;
  std::stringstream in(text);
  int d = 0;
  while (in >> d)
    row.push_back(d);
  return row;
}

std::vector<int> memory_nodes(const std::string& root) {
  try {
    const std::vector<int> online = parse_node_list(read_file(root + "/online"));
    const std::string with_memory = read_file(root + "/has_memory");
    if (with_memory.empty())
      return online;
    const std::vector<int> memory = parse_node_list(with_memory);
    std::vector<int> both;
    for (int n : online)
      if (std::find(memory.begin(), memory.end(), n) != memory.end())
        both.push_back(n);
    return both;
  } catch (const std::invalid_argument&) {
    return {};
  }
}

std::vector<int> node_distances(int node, const std::string& root) {
  return parse_distances(read_file(root + "/node" + std::to_string(node) + "/distance"));
}

int pci_numa_node(const std::string& bus_id, const std::string& pci_root) {
  std::string id = bus_id;
  for (char& c : id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream in(pci_root + "/" + id + "/numa_node");
  int node = -1;
  if (!(in >> node))
    return -1;
  return node;
}

Choice choose_nodes(const std::vector<int>& nodes, int gpu_node,
                    const std::vector<int>& distances) {
  if (gpu_node < 0)
    return {std::nullopt, "the GPU reports no NUMA node (-1), so no host memory is nearer to it "
                          "than any other"};
  if (nodes.size() < 2)
    return {std::nullopt, "the host has " + std::string(nodes.empty() ? "no readable" : "one") +
                              " NUMA node with memory, so there is no far node"};
  if (std::find(nodes.begin(), nodes.end(), gpu_node) == nodes.end())
    return {std::nullopt, "the GPU's NUMA node " + std::to_string(gpu_node) +
                              " has no memory of its own to place buffers on"};
  NodeChoice c;
  c.near = gpu_node;
  for (int n : nodes) {
    if (n == gpu_node)
      continue;
    const int d = size_t(n) < distances.size() ? distances[n] : 0;
    if (c.far < 0 || d > c.distance)
      c.far = n, c.distance = d;
  }
  return {c, ""};
}

NodeMemory::NodeMemory(size_t bytes, int node) : bytes_(bytes), node_(node) {
  if (node < 0 || size_t(node) >= max_nodes)
    throw std::invalid_argument("NodeMemory: node " + std::to_string(node) + " out of range");
  p_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p_ == MAP_FAILED) {
    p_ = nullptr;
    throw std::runtime_error(std::string("NodeMemory: mmap: ") + std::strerror(errno));
  }
  unsigned long mask[mask_words] = {};
  mask[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
  // maxnode counts one more than the mask's bits: the kernel drops the last (mbind(2), as libnuma
  // passes it).
  if (syscall(SYS_mbind, p_, bytes, mpol_bind, mask, max_nodes + 1,
              mpol_mf_strict | mpol_mf_move) != 0) {
    const int error = errno;
    munmap(p_, bytes);
    p_ = nullptr;
    throw NumaUnavailable(std::string("mbind to NUMA node ") + std::to_string(node) +
                          " refused: " + std::strerror(error));
  }
  std::memset(p_, 0, bytes); // every page allocated now, on the node
}

NodeMemory::~NodeMemory() {
  if (p_)
    munmap(p_, bytes_);
}

std::optional<double> NodeMemory::share_on_node() const {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t pages = (bytes_ + page - 1) / page;
  std::vector<void*> addresses(pages);
  for (size_t i = 0; i < pages; ++i)
    addresses[i] = static_cast<char*>(p_) + i * page;
  std::vector<int> status(pages, -1);
  // With no target nodes move_pages only reports each page's node.
  if (syscall(SYS_move_pages, 0, pages, addresses.data(), nullptr, status.data(), 0) != 0)
    return std::nullopt;
  const size_t on_node = size_t(std::count(status.begin(), status.end(), node_));
  return double(on_node) / double(pages);
}

} // namespace apod::numa
