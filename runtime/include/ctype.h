/* ctype.h for the simulated EM-X: ASCII only (there is no locale). */
#ifndef EMX_CTYPE_H
#define EMX_CTYPE_H

static inline int isdigit(int c) { return (unsigned)c - '0' < 10; }
static inline int islower(int c) { return (unsigned)c - 'a' < 26; }
static inline int isupper(int c) { return (unsigned)c - 'A' < 26; }
static inline int isalpha(int c) { return islower(c | 0x20); }
static inline int isalnum(int c) { return isalpha(c) || isdigit(c); }
static inline int isxdigit(int c) { return isdigit(c) || (unsigned)(c | 0x20) - 'a' < 6; }
static inline int isspace(int c) { return c == ' ' || (unsigned)c - '\t' < 5; }
static inline int isprint(int c) { return (unsigned)c - ' ' < 95; }
static inline int iscntrl(int c) { return (unsigned)c < 32 || c == 127; }
static inline int ispunct(int c) { return isprint(c) && !isalnum(c) && c != ' '; }
static inline int tolower(int c) { return isupper(c) ? c | 0x20 : c; }
static inline int toupper(int c) { return islower(c) ? c & ~0x20 : c; }

#endif
