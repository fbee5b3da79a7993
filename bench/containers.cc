// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * containers N: bench/run's C++ workload, N rounds of what C++ programs
 * allocate for: a std::map of std::string, an unordered_map, a growing
 * vector of vectors, and shared_ptrs, all destroyed each round.
 */
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 100;
	size_t total = 0;

	for (long r = 0; r < rounds; r++) {
		std::map<int, std::string> names;
		std::unordered_map<int, int> counts;
		std::vector<std::vector<int>> rows;
		std::vector<std::shared_ptr<int>> shared;

		for (int i = 0; i < 100; i++) {
			names[i] = "a name long enough for the heap " + std::to_string(i);
			counts[i * 7] = i;
			rows.emplace_back(i % 13 + 1, i);
			shared.push_back(std::make_shared<int>(i));
		}
		total += names.size() + counts.size() + rows.size() + shared.size();
	}
	return total == 0;
}
