"""Everdell (work in progress; not registered yet)"""
