#pragma once
int atoi(const char *s);
