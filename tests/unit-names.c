// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the reports' short function names. */
#include "config.h"
#include "names.h"
#include "tap.h"

#include <stdlib.h>

static const struct {
	const char *name, *brief, *what;
} cases[] = {
	{ "main", "main", "a C name as it is" },
	{ "std::_Rb_tree_iterator<std::pair<std::__cxx11::basic_string<char, "
	  "std::char_traits<char>, std::allocator<char> > const, std::vector<int, "
	  "std::allocator<int> > > > std::_Rb_tree<std::__cxx11::basic_string<char, "
	  "std::char_traits<char>, std::allocator<char> >, std::pair<...> >::"
	  "_M_emplace_hint_unique<std::piecewise_construct_t const&, "
	  "std::tuple<std::__cxx11::basic_string<char> const&>, std::tuple<> >"
	  "(std::_Rb_tree_const_iterator<std::pair<int, int> >, "
	  "std::piecewise_construct_t const&, std::tuple<> &&)",
	  "std::_Rb_tree<>::_M_emplace_hint_unique<>()",
	  "template arguments, parameters and return type left out" },
	{ "std::vector<int, std::allocator<int> >::push_back(int const&)",
	  "std::vector<>::push_back()", "a member of a class template" },
	{ "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)",
	  "std::operator<< <>()", "operator<< stays, its return type goes" },
	{ "foo::operator()(int) const", "foo::operator()() const", "operator() stays" },
	{ "bool operator<(a const&, b const&)", "operator<()", "operator< stays" },
	{ "operator new(unsigned long)", "operator new()", "a named operator keeps its space" },
	{ "X::operator std::vector<int, std::allocator<int> >() const",
	  "X::operator std::vector<>() const", "a conversion operator" },
	{ "(anonymous namespace)::helper(int)", "(anonymous namespace)::helper()",
	  "(anonymous namespace) stays" },
	{ "f(int)::{lambda(int)#1}::operator()(int) const",
	  "f()::{lambda()#1}::operator()() const", "a lambda" },
	{ "alloc::raw_vec::RawVec<T,A>::grow_one", "alloc::raw_vec::RawVec<>::grow_one",
	  "a Rust name" },
	{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
	  "std::operator+<char, std::char_traits<char>, std::allocator<char> >(char const*, "
	  "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
	  "std::operator+<>()", "operator+ of a template: its '<' opens the arguments" },
	{ "bool std::operator< <int>(std::vector<int> const&, std::vector<int> const&)",
	  "std::operator< <>()", "operator< of a template, spaced by the demangler" },
	{ "auto std::operator<=><int>(std::pair<int, int> const&, std::pair<int, int> const&)",
	  "std::operator<=><>()", "operator<=>" },
	{ "int& foo::operator->*(int foo::*)", "foo::operator->*()", "operator->*" },
	{ "bool foo::operator==<int>(foo const&) const", "foo::operator==<>() const",
	  "operator== of a template" },
	{ "std::__cxx11::basic_string<char> std::__cxx11::to_string[abi:cxx11](int)",
	  "std::__cxx11::to_string[abi:cxx11]()", "an ABI tag stays" },
	{ "<int>()", "<int>()", "a name it cannot read is kept whole" },
};

int
main(void)
{
	size_t i;

	tap_plan(sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *brief = name_shorten(cases[i].name);

		tap_str_eq(brief, cases[i].brief, "%s", cases[i].what);
		free(brief);
	}
	return tap_done();
}
